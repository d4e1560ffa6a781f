// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/text_sample.h"

#include <vector>

#include "accumlab/text_file.h"

namespace accumlab {

namespace {

constexpr double kTemperature = 0.8;

// The bytes as one line of UTF-8 text.
std::string printable(const std::vector<uint8_t>& bytes) {
  std::string out;
  for (const uint8_t b : bytes) {
    if (b == '\n') {
      out += " / ";
    } else if (b != '\r') {
      out += static_cast<char>(b);
    }
  }
  for (size_t at = firstNonTextByte(out); at != std::string::npos; at = firstNonTextByte(out)) {
    out[at] = '?';
  }
  return out;
}

}  // namespace

std::string sampleTextLine(Model& model, const torch::Device& device, int64_t context,
                           uint64_t seed) {
  torch::NoGradGuard no_grad;
  model.setTraining(false);
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  std::vector<int64_t> tokens = {kTextStart};
  std::vector<uint8_t> bytes;
  while (static_cast<int64_t>(bytes.size()) < kTextSampleBytes &&
         static_cast<int64_t>(tokens.size()) <= context) {
    const torch::Tensor x = torch::tensor(tokens, torch::kLong).unsqueeze(0).to(device);
    const torch::Tensor logits = model.forward(x)[0][-1].to(torch::kCPU, torch::kFloat64);
    const torch::Tensor probs = torch::softmax(logits / kTemperature, 0);
    const int64_t next = torch::multinomial(probs, 1, false, gen).item<int64_t>();
    if (next == kTextEnd) break;
    tokens.push_back(next);
    bytes.push_back(static_cast<uint8_t>(next));
  }
  model.setTraining(true);
  return printable(bytes);
}

}  // namespace accumlab
