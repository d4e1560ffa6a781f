# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes a scripted MLP with a kink of its own: its float32 forward nudges the hidden
pre-activations of samples whose first feature exceeds THRESHOLD by ±1e-3, depending on the
batch's size, as float32 rounding does at a ReLU's 0 on some CPUs; float64 is exact. The
gradient check's kink tests (tests/core/train/grad_check_test.cpp, tests/cli/data_cli_test.sh)
use it, since where natural kinks fall depends on the CPU's float32 kernels.

Usage: kinked_model.py OUT.pt THRESHOLD   (input: 16 features, 10 classes)
"""
import sys

import torch
import torch.nn as nn

torch.manual_seed(0)
THRESHOLD = float(sys.argv[2])


class Kinked(nn.Module):
    def __init__(self, threshold: float):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 10)
        self.threshold = threshold

    def forward(self, x):
        x = x.flatten(1)
        h = self.fc1(x)
        if h.dtype == torch.float32:
            side = 1.0 if x.size(0) > 8 else -1.0
            h = h + side * 1e-3 * (x[:, :1] > self.threshold).to(h.dtype)
        return self.fc2(torch.relu(h))


torch.jit.script(Kinked(THRESHOLD)).save(sys.argv[1])
