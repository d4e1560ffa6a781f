// SPDX-License-Identifier: GPL-3.0-or-later
// The counting CPU allocator (core/memory/counting_allocator.cpp): exact bytes per ledger.
#include "memory/counting_allocator.h"

#include <c10/core/CPUAllocator.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <memory>
#include <string>
#include <thread>

namespace accumlab {
namespace {

class CountingAllocatorTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(installCountingAllocator()); }
};

TEST_F(CountingAllocatorTest, CountsAKnownAllocationExactly) {
  auto ledger = std::make_shared<TensorLedger>();
  const int64_t process_before = processTensorLedger().currentBytes();
  {
    TensorCharge charge(ledger);
    torch::Tensor t = torch::empty({1000}, torch::kFloat32);  // 4000 bytes
    EXPECT_EQ(ledger->currentBytes(), 4000);
    EXPECT_EQ(ledger->peakBytes(), 4000);
    EXPECT_EQ(processTensorLedger().currentBytes() - process_before, 4000);
    torch::Tensor u = torch::empty({10, 10}, torch::kFloat64);  // 800 bytes more
    EXPECT_EQ(ledger->currentBytes(), 4800);
    t = torch::Tensor();
    EXPECT_EQ(ledger->currentBytes(), 800);
    EXPECT_EQ(ledger->peakBytes(), 4800);
  }
  EXPECT_EQ(ledger->currentBytes(), 0);
  EXPECT_EQ(ledger->peakBytes(), 4800);
  EXPECT_EQ(processTensorLedger().currentBytes(), process_before);
}

TEST_F(CountingAllocatorTest, AFreeIsChargedToTheLedgerThatAllocated) {
  auto a = std::make_shared<TensorLedger>();
  auto b = std::make_shared<TensorLedger>();
  torch::Tensor kept;
  {
    TensorCharge charge_a(a);
    kept = torch::empty({256}, torch::kFloat32);  // 1024 bytes, a's
    {
      TensorCharge charge_b(b);  // nested: b until it ends, then a again
      torch::Tensor scratch = torch::empty({64}, torch::kFloat32);
      EXPECT_EQ(b->currentBytes(), 256);
    }
    torch::Tensor more = torch::empty({8}, torch::kFloat64);
    EXPECT_EQ(a->currentBytes(), 1024 + 64);
  }
  EXPECT_EQ(a->currentBytes(), 1024);
  EXPECT_EQ(b->currentBytes(), 0);
  // Freed on another thread, outside any charge: still a's bytes that go.
  std::thread([t = std::move(kept)]() mutable { t = torch::Tensor(); }).join();
  EXPECT_EQ(a->currentBytes(), 0);
  EXPECT_EQ(a->peakBytes(), 1024 + 64);
}

TEST_F(CountingAllocatorTest, ALimitRefusesWhatWouldPassItAndCountsNothing) {
  auto ledger = std::make_shared<TensorLedger>();
  ledger->setLimit(4096);
  const int64_t process_before = processTensorLedger().currentBytes();
  TensorCharge charge(ledger);
  torch::Tensor kept = torch::empty({512}, torch::kFloat32);                  // 2048 of 4096
  EXPECT_THROW(torch::empty({512}, torch::kFloat64), c10::OutOfMemoryError);  // 4096 more
  EXPECT_EQ(ledger->currentBytes(), 2048);
  EXPECT_EQ(ledger->peakBytes(), 2048);
  EXPECT_EQ(processTensorLedger().currentBytes() - process_before, 2048);
  try {
    torch::empty({512}, torch::kFloat64);
  } catch (const c10::OutOfMemoryError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("out of memory: 4 KiB more would take the arm's tensors from 2 KiB past "
                         "the memory budget of 4 KiB",
                         0),
              0u)
        << what;
  }
  torch::Tensor fits = torch::empty({512}, torch::kFloat32);  // exactly to the limit
  EXPECT_EQ(ledger->currentBytes(), 4096);
  ledger->setLimit(0);  // no limit
  torch::Tensor more = torch::empty({4096}, torch::kFloat64);
  EXPECT_EQ(ledger->currentBytes(), 4096 + 32768);
}

TEST_F(CountingAllocatorTest, ResetPeakStartsFromTheBytesAliveNow) {
  auto ledger = std::make_shared<TensorLedger>();
  TensorCharge charge(ledger);
  torch::Tensor base = torch::empty({100}, torch::kFloat32);
  { torch::Tensor big = torch::empty({10000}, torch::kFloat32); }
  EXPECT_EQ(ledger->peakBytes(), 40400);
  ledger->resetPeak();
  EXPECT_EQ(ledger->peakBytes(), 400);
  torch::Tensor small = torch::empty({50}, torch::kFloat32);
  EXPECT_EQ(ledger->peakBytes(), 600);
}

TEST_F(CountingAllocatorTest, RawAllocationsWorkAndAreCounted) {
  // oneDNN takes its scratch memory through raw_allocate/raw_deallocate.
  auto ledger = std::make_shared<TensorLedger>();
  TensorCharge charge(ledger);
  c10::Allocator* cpu = c10::GetCPUAllocator();
  void* p = cpu->raw_allocate(333);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(ledger->currentBytes(), 333);
  cpu->raw_deallocate(p);
  EXPECT_EQ(ledger->currentBytes(), 0);
}

TEST_F(CountingAllocatorTest, TrainingStillComputesTheSameNumbers) {
  // A conv net's forward and backward through the counting allocator (oneDNN, BLAS) give
  // finite gradients, and every byte the step allocated is freed with its tensors.
  auto ledger = std::make_shared<TensorLedger>();
  {
    TensorCharge charge(ledger);
    torch::manual_seed(1);
    torch::nn::Conv2d conv(torch::nn::Conv2dOptions(1, 4, 3));
    torch::Tensor x = torch::randn({8, 1, 28, 28});
    conv->forward(x).square().sum().backward();
    EXPECT_TRUE(torch::isfinite(conv->weight.grad()).all().item<bool>());
    EXPECT_GT(ledger->peakBytes(), x.nbytes() + 8 * 4 * 26 * 26 * 4);
  }
  EXPECT_EQ(ledger->currentBytes(), 0);
}

}  // namespace
}  // namespace accumlab
