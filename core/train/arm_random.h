#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace accumlab {

/// One arm's random generators, seeded from the experiment seed: the CPU generator's state,
/// plus the CUDA device's when the arm trains there. While a Scope is alive, they are the
/// process's default generators, so dropout and every other random op of the arm's model draw
/// from the arm's own stream; the Scope's end saves the arm's state and restores the previous
/// one. A run is therefore reproducible bit for bit, and no arm's draws depend on another's.
/// Used on the training thread only.
class ArmRandom {
 public:
  ArmRandom(uint64_t seed, const torch::Device& device);

  /// Makes the arm's generators the default ones until destroyed.
  class Scope {
   public:
    explicit Scope(ArmRandom& random);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    ArmRandom& random_;
    std::vector<torch::Tensor> saved_;  ///< the default generators' states before the scope
  };

 private:
  struct Slot {
    at::Generator generator;  ///< a process-wide default generator
    torch::Tensor state;      ///< this arm's state of it, outside a Scope
  };
  std::vector<Slot> slots_;
};

}  // namespace accumlab
