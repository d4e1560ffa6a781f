// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/gloo_device.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>

namespace accumlab {

std::string localAddressTowards(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0 || !found)
    return "";
  std::string address;
  const int fd = ::socket(found->ai_family, SOCK_DGRAM, 0);
  sockaddr_storage local{};
  socklen_t length = sizeof local;
  // Connecting a UDP socket sends nothing; it only picks the route and the local address.
  if (fd >= 0 && ::connect(fd, found->ai_addr, found->ai_addrlen) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) == 0) {
    char text[INET6_ADDRSTRLEN] = {};
    const void* raw =
        local.ss_family == AF_INET6
            ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(&local)->sin6_addr)
            : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&local)->sin_addr);
    if (::inet_ntop(local.ss_family, raw, text, sizeof text)) address = text;
  }
  if (fd >= 0) ::close(fd);
  ::freeaddrinfo(found);
  return address;
}

std::shared_ptr<::gloo::transport::Device> glooDevice(bool local, const std::string& host,
                                                      int port) {
  if (local) return c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1");
  if (const char* interface = std::getenv("GLOO_SOCKET_IFNAME"); interface && *interface) {
    return c10d::ProcessGroupGloo::createDeviceForInterface(interface);
  }
  const std::string address = localAddressTowards(host, port);
  return address.empty() ? c10d::ProcessGroupGloo::createDefaultDevice()
                         : c10d::ProcessGroupGloo::createDeviceForHostname(address);
}

}  // namespace accumlab
