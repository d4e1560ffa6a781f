#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes TorchScript archives whose tensor records are cut short, as a damaged download or a
careless re-zip leaves them: valid zips, a valid pickle, but records that hold fewer bytes than
the tensors read from them. LibTorch's loader accepts such a file and reads past the record;
AccumLab's model check must refuse it (tests/cli/model_check_test.sh, case truncated).

    /usr/bin/python3 tests/fuzz/truncate_records.py OUT_DIR

Writes OUT_DIR/truncated-*.pt; the committed copies are in tests/fuzz/findings/torchscript/.
"""
import io
import re
import struct
import sys
import zipfile

import torch
import torch.nn as nn

RECORD = re.compile(r"/data/\d+$")


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 24)  # fc1.weight: 24·64 floats, 6,144 bytes
        self.fc2 = nn.Linear(24, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x.flatten(1))))


class Normed(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(64, 16)
        self.bn = nn.BatchNorm1d(16)
        self.out = nn.Linear(16, 10)
        self.bn.running_var.fill_(2.5)  # bytes that name its record

    def forward(self, x):
        return self.out(torch.relu(self.bn(self.fc(x.flatten(1)))))


class TailView(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(64, 10)
        # A view at storage offset 60 of a 100-float storage: the whole storage is saved.
        self.register_buffer("tail", (torch.arange(100, dtype=torch.float32) + 0.5)[60:])

    def forward(self, x):
        return self.fc(x.flatten(1)) + self.tail[:10]


def saved(module):
    buffer = io.BytesIO()
    torch.jit.save(torch.jit.script(module), buffer)
    return buffer.getvalue()


def rezip(archive, out_path, cut):
    """Copies `archive` to out_path entry by entry; cut(name, data) gives each record's bytes."""
    with zipfile.ZipFile(io.BytesIO(archive)) as zin, zipfile.ZipFile(out_path, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if RECORD.search(info.filename):
                data = cut(info.filename, data)
            zout.writestr(info, data)


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    # Every record cut in half: parameter fc1.weight needs 6,144 bytes, its record holds 3,072.
    rezip(saved(Mlp()), out + "/truncated-every-record.pt", lambda name, data: data[: len(data) // 2])
    # Only the BatchNorm's running variance cut in half: 64 bytes needed, 32 held.
    var = struct.pack("<16f", *([2.5] * 16))
    rezip(saved(Normed()), out + "/truncated-buffer-record.pt",
          lambda name, data: data[: len(data) // 2] if data == var else data)
    # The 100-float storage of a view at offset 60 cut to 75 floats: 400 bytes needed, 300 held.
    tail = struct.pack("<100f", *[i + 0.5 for i in range(100)])
    rezip(saved(TailView()), out + "/truncated-view-record.pt",
          lambda name, data: data[:300] if data == tail else data)


if __name__ == "__main__":
    main()
