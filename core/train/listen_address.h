// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace accumlab {

/// Makes the sockets that this thread binds to every interface while it lives listen on one
/// address instead: c10d's TCPStore (LibTorch 1.13 and 2.x) has no option to choose one, and
/// rank 0 should listen only where the other ranks reach it (docs/data-parallel.md).
///
/// How: this library defines `bind()`, which the dynamic linker finds before the C
/// library's, for every library of the process; outside a ListenAddress it only calls the C
/// library's. Threads: the address is this thread's; other threads' binds are untouched.
class ListenAddress {
 public:
  /// `address` is numeric (IPv4 or IPv6); throws InputError when it is not.
  explicit ListenAddress(const std::string& address);
  ~ListenAddress();
  ListenAddress(const ListenAddress&) = delete;
  ListenAddress& operator=(const ListenAddress&) = delete;

  /// How many wildcard binds this thread has redirected so far (tests: zero means the
  /// interposition is not in effect).
  static int redirected();
};

}  // namespace accumlab
