#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The TensorBoard export read back by a reader of its own (docs/store.md, "Runs in TensorBoard").

--case roundtrip: a short real run of three arms, then `accumlab-cli export --format
tensorboard`. Each log folder's event file is read record by record here: every length and
data CRC-32C checked (Debian's python3-crc32c, not the writer's Boost.CRC), every record parsed
with Python's protobuf (python3-protobuf) from the message definitions compiled with protoc at
test time, their field numbers checked against TensorFlow's public ones. Every scalar, on both
x axes, must equal (as float32) what `export --format json` reads from the store; the config,
summary and events must be there as text for TensorBoard's text plugin.

--case errors: an output folder that is a file, a run's log folder that is a file, a
read-only folder (not as root), and text output: exit 2 with one sentence naming the folder,
and no half-written file left.

Usage: tensorboard_export_test.py PATH/TO/accumlab-cli PATH/TO/PROTO PATH/TO/protoc
                                  --case roundtrip|errors
Exit 0 when every check passes.
"""
import argparse
import calendar
import importlib
import json
import os
import struct
import subprocess
import sys
import tempfile
import time


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def cli(exe, *args, want=0):
    done = subprocess.run([exe, *args], capture_output=True, text=True, timeout=300)
    if done.returncode != want:
        raise Failure(f"accumlab-cli {' '.join(args)} exited {done.returncode}, expected "
                      f"{want}: {done.stderr.strip()[:400]}")
    return done


# ---- the reader

def masked_crc(data):
    import crc32c
    c = crc32c.crc32c(data)
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def tf_records(path):
    """The data of each TFRecord of the file, every CRC checked."""
    data = open(path, "rb").read()
    records, at = [], 0
    while at < len(data):
        check(at + 12 <= len(data), f"{path}: a record header is cut off at byte {at}")
        header = data[at:at + 8]
        (length,) = struct.unpack("<Q", header)
        (length_crc,) = struct.unpack("<I", data[at + 8:at + 12])
        check(length_crc == masked_crc(header), f"{path}: bad length CRC at byte {at}")
        body = data[at + 12:at + 12 + length]
        check(len(body) == length and at + 16 + length <= len(data),
              f"{path}: a record is cut off at byte {at}")
        (body_crc,) = struct.unpack("<I", data[at + 12 + length:at + 16 + length])
        check(body_crc == masked_crc(body), f"{path}: bad data CRC at byte {at}")
        records.append(body)
        at += 16 + length
    return records


# Field numbers of TensorFlow's event.proto, summary.proto, tensor.proto and types.proto.
TENSORFLOW_FIELDS = {
    "Event": {"wall_time": 1, "step": 2, "file_version": 3, "summary": 5},
    "Summary": {"value": 1},
    "Summary.Value": {"tag": 1, "simple_value": 2, "tensor": 8, "metadata": 9},
    "SummaryMetadata": {"plugin_data": 1, "display_name": 2, "summary_description": 3,
                        "data_class": 4},
    "SummaryMetadata.PluginData": {"plugin_name": 1, "content": 2},
    "TensorProto": {"dtype": 1, "tensor_shape": 2, "version_number": 3, "string_val": 8},
    "TensorShapeProto": {"dim": 2, "unknown_rank": 3},
}
TENSORFLOW_ENUMS = {"DT_STRING": 7, "DT_FLOAT": 1, "DATA_CLASS_TENSOR": 2}


def compile_messages(protoc, proto, out):
    os.makedirs(out)
    subprocess.run([protoc, f"--python_out={out}", f"-I{os.path.dirname(proto)}", proto],
                   check=True)
    sys.path.insert(0, out)
    pb = importlib.import_module(os.path.basename(proto).replace(".proto", "_pb2"))
    for message, fields in TENSORFLOW_FIELDS.items():
        descriptor = pb.DESCRIPTOR.message_types_by_name[message.split(".")[0]]
        for nested in message.split(".")[1:]:
            descriptor = descriptor.nested_types_by_name[nested]
        for name, number in fields.items():
            got = descriptor.fields_by_name[name].number
            check(got == number, f"{message}.{name} is field {got}, TensorFlow's is {number}")
    for name, number in TENSORFLOW_ENUMS.items():
        check(getattr(pb, name) == number, f"{name} is {getattr(pb, name)}, TensorFlow's is {number}")
    return pb


class Log:
    """One run's event file: scalars[tag][step] = (value, wall_time), texts[tag][step]."""

    def __init__(self, pb, path):
        self.scalars, self.texts = {}, {}
        records = tf_records(path)
        check(records, f"{path} is empty")
        first = pb.Event.FromString(records[0])
        check(first.file_version == "brain.Event:2", f"first record: {first}")
        for data in records[1:]:
            event = pb.Event.FromString(data)
            check(event.WhichOneof("what") == "summary", f"not a summary: {event}")
            for v in event.summary.value:
                kind = v.WhichOneof("value")
                if kind == "simple_value":
                    self.put(self.scalars, v.tag, event.step, (v.simple_value, event.wall_time))
                    continue
                check(kind == "tensor" and v.metadata.plugin_data.plugin_name == "text" and
                      v.tensor.dtype == pb.DT_STRING and len(v.tensor.string_val) == 1 and
                      not v.tensor.tensor_shape.dim, f"{v.tag}: not a text summary: {v}")
                self.put(self.texts, v.tag, event.step, v.tensor.string_val[0].decode())

    @staticmethod
    def put(table, tag, step, value):
        series = table.setdefault(tag, {})
        check(step not in series, f"{tag} has step {step} twice")
        series[step] = value


# ---- what the store holds (the JSON export) against what the logs say

def f32(v):
    return struct.unpack("f", struct.pack("f", float(v)))[0]


def flatten(value, prefix=""):
    if isinstance(value, dict) and value:
        out = {}
        for k, v in value.items():
            out.update(flatten(v, f"{prefix}.{k}" if prefix else k))
        return out
    return {prefix: value}


def table_of(text):
    rows = text.strip().split("\n")
    check(rows[0] == "| key | value |", f"not a key/value table: {text[:200]}")
    out = {}
    for row in rows[2:]:
        key, value = row[2:-2].split(" | ", 1)
        out[key] = json.loads(value.replace("\\|", "|"))
    return out


def expect_series(log, tag, points, samples_of, wall_of, start, what):
    """points: {step: value}; the same against samples seen under by_samples/."""
    got = log.scalars.pop(tag, {})
    check(sorted(got) == sorted(points), f"{what}: {tag} has steps {sorted(got)[:8]}…, "
                                         f"expected {sorted(points)[:8]}…")
    by_samples = log.scalars.pop("by_samples/" + tag, {})
    check(sorted(by_samples) == sorted(samples_of[s] for s in points),
          f"{what}: by_samples/{tag} has other sample counts")
    for step, value in points.items():
        check(got[step][0] == f32(value), f"{what}: {tag} at step {step} is {got[step][0]}, "
                                          f"the store holds {value}")
        check(by_samples[samples_of[step]][0] == f32(value), f"{what}: by_samples/{tag} differs")
        check(step not in wall_of or abs(got[step][1] - (start + wall_of[step] / 1000)) < 1e-3,
              f"{what}: {tag} at step {step} has wall time {got[step][1]}")
    return len(points)


def compare_run(log, run):
    what = f"run {run['id']}"
    start = calendar.timegm(time.strptime(run["started_at"], "%Y-%m-%dT%H:%M:%SZ"))
    m = run["metrics"]
    samples_of = dict(zip(m["step"], m["samples_seen"]))
    wall_of = dict(zip(m["step"], m["wall_ms"]))
    step_tags = [t for t in log.scalars if not t.startswith(("by_samples/", "eval/", "probe/"))]
    compared = 0
    for column, values in m.items():
        if column in ("step", "samples_seen", "wall_ms"):
            continue
        tags = [t for t in step_tags if t.split("/")[-1] == column]
        points = {s: float(v) for s, v in zip(m["step"], values)
                  if v is not None and not (isinstance(v, int) and not isinstance(v, bool) and v < 0)}
        check(len(tags) == 1 or (not tags and not points), f"{what}: column {column} has tags {tags}")
        if tags:
            compared += expect_series(log, tags[0], points, samples_of, wall_of, start, what)
    e = run["evals"]
    samples_of.update(zip(e["step"], e["samples_seen"]))
    wall_of.update({s: w for s, w in zip(e["step"], e["wall_ms"]) if s not in wall_of})
    for name in ("loss", "accuracy"):
        points = {s: v for s, v in zip(e["step"], e[name]) if v is not None}
        compared += expect_series(log, "eval/" + name, points, samples_of, wall_of, start, what)
    # Every number of a probe (its field table): all but its axes and its histogram.
    probe_names = sorted({k for p in run["probes"] for k in p} -
                         {"step", "samples_seen", "wall_ms", "histogram"})
    for name in probe_names:
        points = {p["step"]: float(p[name]) for p in run["probes"] if p[name] is not None}
        for p in run["probes"]:
            samples_of.setdefault(p["step"], p["samples_seen"])
        compared += expect_series(log, "probe/" + name, points, samples_of, wall_of, start, what)
    check(not log.scalars, f"{what}: tags the store has no values for: {sorted(log.scalars)}")

    texts = log.texts
    check(table_of(texts["config"][0]) == flatten(run["config"]), f"{what}: the config text differs")
    about = texts["run"][0]
    for want in (f"**Run {run['id']}**", f"arm {run['arm']}", f"status: {run['status']}",
                 run["dataset"], run["device"], *run["tags"], run["note"]):
        check(want in about, f"{what}: the run text lacks {want!r}: {about}")
    last = max(m["step"])
    check(table_of(texts["summary"][last]) == flatten(run["summary"]), f"{what}: summary text differs")
    for ev in run["events"]:
        before = [s for s, n in zip(m["step"], m["samples_seen"]) if n <= ev["samples_seen"]]
        step = before[-1] if before else 0
        for tag, x in (("events", step), ("by_samples/events", ev["samples_seen"])):
            text = texts.get(tag, {}).get(x, "")
            check(f"**{ev['kind']}**" in text and ev["message"] in text,
                  f"{what}: {tag} at {x} lacks the event {ev['message']!r}: {text!r}")
    return compared


def roundtrip(args, tmp):
    pb = compile_messages(args.protoc, args.proto, os.path.join(tmp, "pb"))
    db = os.path.join(tmp, "runs.sqlite")
    # Two epochs of 990 samples whose partial windows are dropped (events), evaluated and
    # probed every 256 samples.
    cli(args.cli, "run", "--data", "blobs", "--synthetic-samples", "1100", "--epochs", "2",
        "--window-policy", "drop", "--lr", "0.05", "--eval-every", "256", "--probe-every", "256",
        "--probe-repeats", "64", "-q", "--db", db)
    cli(args.cli, "tag", "2", "baseline", "--db", db)
    cli(args.cli, "note", "2", "a note | with a bar", "--db", db)
    out = os.path.join(tmp, "tb")
    said = cli(args.cli, "export", "1", "2", "3", "--format", "tensorboard", "--out", out, "--db", db)
    check(f"tensorboard --logdir {out}" in said.stderr, f"export said: {said.stderr}")
    runs = json.loads(cli(args.cli, "export", "1", "2", "3", "--format", "json", "--out", "-",
                          "--db", db).stdout)["runs"]
    check(sorted(os.listdir(out)) == ["1-no-accum", "2-accum", "3-big-batch"], f"{os.listdir(out)}")
    compared = 0
    for run in runs:
        folder = os.path.join(out, f"{run['id']}-{run['arm']}")
        files = os.listdir(folder)
        check(len(files) == 1 and files[0].startswith("events.out.tfevents."), f"{folder}: {files}")
        check(run["events"], f"run {run['id']} has no events to compare")
        compared += compare_run(Log(pb, os.path.join(folder, files[0])), run)
    check(any(r["probes"] for r in runs), "no run has a probe to compare")
    # An export again replaces the event files.
    cli(args.cli, "export", "2", "--format", "tensorboard", "--out", out, "--db", db)
    check(len(os.listdir(os.path.join(out, "2-accum"))) == 1, "a second export added a file")
    print(f"PASS: {compared} scalar points of {len(runs)} runs read back equal to the store's")


def errors(args, tmp):
    db = os.path.join(tmp, "runs.sqlite")
    cli(args.cli, "run", "--data", "blobs", "--samples", "256", "--arms", "accum", "-q", "--db", db)

    def refused(out, *words):
        done = cli(args.cli, "export", "1", "--format", "tensorboard", "--out", out, "--db", db, want=2)
        message = done.stderr.strip()
        check(len(message.splitlines()) == 1 and out in message and all(w in message for w in words),
              f"--out {out}: {message!r}")

    a_file = os.path.join(tmp, "a-file")
    open(a_file, "w").write("not a folder\n")
    refused(a_file, "is a file, not a folder")
    blocked = os.path.join(tmp, "blocked")
    os.makedirs(blocked)
    open(os.path.join(blocked, "1-accum"), "w").write("in the way\n")
    refused(blocked, "1-accum is a file, not a folder")
    if os.geteuid() != 0:  # root writes anywhere
        locked = os.path.join(tmp, "locked")
        os.makedirs(locked)
        os.chmod(locked, 0o555)
        refused(locked, "Permission denied")
        refused(os.path.join(locked, "inside"), "Permission denied")
    leftovers = [os.path.join(d, f) for d, _, fs in os.walk(tmp) for f in fs if f.endswith(".partial")]
    check(not leftovers, f"half-written files left: {leftovers}")
    done = cli(args.cli, "export", "1", "--format", "tensorboard", "--out", "-", "--db", db, want=2)
    check("folder" in done.stderr, f"--out - said: {done.stderr}")
    done = cli(args.cli, "export", "1", "--format", "xlsx", "--out", a_file, "--db", db, want=2)
    check("tensorboard" in done.stderr, f"an unknown format said: {done.stderr}")
    print("PASS: unwritable output folders give one sentence and exit 2")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("cli")
    parser.add_argument("proto")
    parser.add_argument("protoc")
    parser.add_argument("--case", choices=["roundtrip", "errors"], required=True)
    args = parser.parse_args()
    try:
        import crc32c  # noqa: F401
        import google.protobuf  # noqa: F401
    except ImportError as e:
        print(f"FAIL: {e}: install python3-protobuf and python3-crc32c (scripts/setup does)")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_DATA_HOME"] = os.path.join(tmp, "xdg")
        try:
            (roundtrip if args.case == "roundtrip" else errors)(args, tmp)
        except Failure as e:
            print(f"FAIL [{args.case}]: {e}")
            return 1
        finally:
            for d, _, _ in os.walk(tmp):
                os.chmod(d, 0o755)
    return 0


if __name__ == "__main__":
    sys.exit(main())
