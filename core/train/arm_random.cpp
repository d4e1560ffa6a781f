#include "train/arm_random.h"

#include <mutex>

namespace accumlab {

namespace {

// The generator's own mutex guards its state against other threads drawing from it.
torch::Tensor stateOf(at::Generator& g) {
  std::lock_guard<std::mutex> lock(g.mutex());
  return g.get_state();
}

void setState(at::Generator& g, const torch::Tensor& state) {
  std::lock_guard<std::mutex> lock(g.mutex());
  g.set_state(state);
}

torch::Tensor seededState(at::Generator& g, uint64_t seed) {
  std::lock_guard<std::mutex> lock(g.mutex());
  const torch::Tensor saved = g.get_state();
  g.set_current_seed(seed);
  torch::Tensor seeded = g.get_state();
  g.set_state(saved);
  return seeded;
}

}  // namespace

ArmRandom::ArmRandom(uint64_t seed, const torch::Device& device) {
  at::Generator cpu = at::globalContext().defaultGenerator(torch::Device(torch::kCPU));
  slots_.push_back({cpu, seededState(cpu, seed)});
  if (device.is_cuda()) {
    at::Generator gpu = at::globalContext().defaultGenerator(device);
    slots_.push_back({gpu, seededState(gpu, seed)});
  }
}

ArmRandom::Scope::Scope(ArmRandom& random) : random_(random) {
  saved_.reserve(random_.slots_.size());
  for (auto& slot : random_.slots_) {
    saved_.push_back(stateOf(slot.generator));
    setState(slot.generator, slot.state);
  }
}

ArmRandom::Scope::~Scope() {
  for (size_t i = 0; i < random_.slots_.size(); ++i) {
    Slot& slot = random_.slots_[i];
    slot.state = stateOf(slot.generator);
    setState(slot.generator, saved_[i]);
  }
}

}  // namespace accumlab
