# SPDX-License-Identifier: GPL-3.0-or-later
"""AccumLab in Python: the audit of your own training loop (docs/audit.md)."""
from . import audit  # noqa: F401

__version__ = "0.2.0"
