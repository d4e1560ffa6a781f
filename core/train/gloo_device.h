// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

namespace accumlab {

/// This machine's address on the route to host:port ("" when it cannot be found): what the
/// other ranks can reach, and where rank 0 listens. (Gloo's default resolves the hostname,
/// which Debian maps to a loopback address in /etc/hosts, where no other machine can connect.)
std::string localAddressTowards(const std::string& host, int port);

/// The network device Gloo connects the ranks through: loopback for ranks on this machine
/// (`local`), so that they listen on nothing else; GLOO_SOCKET_IFNAME's interface when set
/// (PyTorch's convention); else this machine's address towards the master.
std::shared_ptr<::gloo::transport::Device> glooDevice(bool local, const std::string& host,
                                                      int port);

}  // namespace accumlab
