// SPDX-License-Identifier: GPL-3.0-or-later
// The check of a TorchScript file in a child process: each way the child can end becomes one
// sentence naming the file, and a file checked unchanged is not checked again. Stub checkers
// (shell scripts) play the child; the real one is accumlab-engine (tests/cli/model_check_test.sh).
#include "accumlab/torchscript_check.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "../data/temp_files.h"
#include "accumlab/input_error.h"

namespace accumlab {
namespace {

class TorchScriptCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = dir_ / "model.pt";
    testing::writeText(model_, "a model");
  }
  void TearDown() override { setModelCheckProgram(ACCUMLAB_ENGINE); }

  // Makes a checker that runs `body` (sh) and counts its runs in calls.log.
  void useChecker(const std::string& body) {
    const std::string path = dir_ / "checker.sh";
    testing::writeText(path, "#!/bin/sh\necho x >> '" + (dir_ / "calls.log") + "'\n" + body + "\n");
    ::chmod(path.c_str(), 0755);
    setModelCheckProgram(path);
  }
  std::string messageOf() {
    try {
      checkModelInChild(model_, ModelSample{{1, 8, 8}, false});
    } catch (const InputError& e) {
      return e.what();
    }
    return "(no InputError)";
  }
  int calls() {
    std::ifstream log(dir_ / "calls.log");
    int n = 0;
    for (std::string line; std::getline(log, line);) ++n;
    return n;
  }

  testing::TempDir dir_;
  std::string model_;
};

TEST_F(TorchScriptCheckTest, ACrashNamesTheFileAndTheSignal) {
  useChecker("kill -SEGV $$");
  EXPECT_EQ(messageOf(), model_ + " is not a loadable TorchScript model: the loader crashed " +
                             "(signal 11); save it again from Python with " +
                             "torch.jit.script(model).save(path)");
}

TEST_F(TorchScriptCheckTest, TheChildGetsTheFileAndTheSample) {
  useChecker("test \"$1 $2 $3\" = \"check-model $2 float:1x8x8\" || exit 9");
  EXPECT_EQ(messageOf(), "(no InputError)");
  EXPECT_EQ(sampleArgument(ModelSample{{40}, true}), "tokens:40");
}

TEST_F(TorchScriptCheckTest, OutOfMemoryNamesTheLimit) {
  useChecker("exit 3");
  EXPECT_NE(messageOf().find(model_ + " is not a loadable TorchScript model: the loader ran out " +
                             "of its 2 GiB of memory"),
            std::string::npos);
}

TEST_F(TorchScriptCheckTest, TheLoadersReasonIsPassedOn) {
  useChecker(
      "echo '[W warning from LibTorch]' >&2; echo \"$2 is not a TorchScript archive\" >&2; "
      "exit 2");
  EXPECT_EQ(messageOf(), model_ + " is not a TorchScript archive");
}

TEST_F(TorchScriptCheckTest, ABrokenCheckerIsNamed) {
  useChecker("echo 'cannot open shared object file' >&2; exit 127");
  const std::string message = messageOf();
  EXPECT_NE(message.find("cannot load " + model_ + ": the model checker"), std::string::npos)
      << message;
  EXPECT_NE(message.find("exited with status 127 (cannot open shared object file)"),
            std::string::npos)
      << message;
}

TEST_F(TorchScriptCheckTest, AFileCheckedUnchangedIsNotCheckedAgain) {
  useChecker("test \"$1\" = check-model || exit 9");
  EXPECT_EQ(messageOf(), "(no InputError)");
  EXPECT_EQ(messageOf(), "(no InputError)");
  EXPECT_EQ(calls(), 1);
  testing::writeText(model_, "another model");  // a new size: checked again
  EXPECT_EQ(messageOf(), "(no InputError)");
  EXPECT_EQ(calls(), 2);
}

}  // namespace
}  // namespace accumlab
