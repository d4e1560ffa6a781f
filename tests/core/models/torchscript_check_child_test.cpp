// SPDX-License-Identifier: GPL-3.0-or-later
// The model check's child, in this process: a file whose tensors reach past their records is
// refused with the tensor's name and both byte counts (tests/fuzz/truncate_records.py wrote
// the files), a sound one passes, and the child's sample argument reads back.
#include "models/torchscript_check_child.h"

#include <gtest/gtest.h>

#include <string>

#include "accumlab/input_error.h"

namespace accumlab {
namespace {

std::string finding(const std::string& name) {
  return std::string(ACCUMLAB_SOURCE_DIR) + "/tests/fuzz/findings/torchscript/" + name;
}

std::string refusalOf(const std::string& path, const ModelSample& sample) {
  try {
    verifyTorchScriptHere(path, sample);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(passed)";
}

TEST(TorchScriptCheckChild, TensorsPastTheirRecordsAreNamedWithBothByteCounts) {
  const ModelSample features{{64}, false};
  const std::string save = "; save it again from Python with torch.jit.script(model).save(path)";
  const struct {
    const char* file;
    const char* why;
  } cases[] = {
      {"truncated-every-record.pt",
       "parameter fc1.weight needs 6,144 bytes but its record holds 3,072"},
      {"truncated-buffer-record.pt",
       "buffer bn.running_var needs 64 bytes but its record holds 32"},
      {"truncated-view-record.pt", "buffer tail needs 400 bytes but its record holds 300"},
  };
  for (const auto& c : cases) {
    const std::string path = finding(c.file);
    EXPECT_EQ(refusalOf(path, features),
              path + " is not a usable TorchScript model: " + c.why + save);
  }
}

TEST(TorchScriptCheckChild, ASoundModelPasses) {
  // The fuzzer's seeds: a Linear(4, 2), and a BatchNorm and Dropout over 3 features.
  const std::string corpus = std::string(ACCUMLAB_SOURCE_DIR) + "/tests/fuzz/corpus/torchscript/";
  EXPECT_EQ(refusalOf(corpus + "linear.pt", ModelSample{{4}, false}), "(passed)");
  EXPECT_EQ(refusalOf(corpus + "batchnorm-dropout.pt", ModelSample{{3}, false}), "(passed)");
  // A sample the model cannot take is left to the dry run before training, which names both
  // shapes.
  EXPECT_EQ(refusalOf(corpus + "linear.pt", ModelSample{{5}, false}), "(passed)");
}

TEST(TorchScriptCheckChild, TheSampleArgumentReadsBack) {
  for (const ModelSample& s : {ModelSample{{1, 28, 28}, false}, ModelSample{{40}, true}}) {
    const std::optional<ModelSample> back = parseSampleArgument(sampleArgument(s));
    ASSERT_TRUE(back) << sampleArgument(s);
    EXPECT_EQ(back->shape, s.shape);
    EXPECT_EQ(back->tokens, s.tokens);
  }
  for (const char* bad : {"", "float", "float:", "image:3", "float:1x", "float:-1", "tokens:4x",
                          "float:99999x99999"}) {
    EXPECT_FALSE(parseSampleArgument(bad)) << bad;
  }
}

}  // namespace
}  // namespace accumlab
