// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/listen_address.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "accumlab/input_error.h"

namespace accumlab {

namespace {

/// The address this thread's wildcard binds go to, while a ListenAddress lives.
struct BindTarget {
  bool active = false;
  in6_addr v6{};  ///< the address as IPv6 (an IPv4 one mapped: ::ffff:a.b.c.d)
  bool v4 = false;
  in_addr v4_address{};
  int redirected = 0;
};

thread_local BindTarget bind_target;

using BindFunction = int (*)(int, const sockaddr*, socklen_t);

BindFunction cLibraryBind() {
  static const auto real = reinterpret_cast<BindFunction>(::dlsym(RTLD_NEXT, "bind"));
  return real;
}

}  // namespace

ListenAddress::ListenAddress(const std::string& address) {
  BindTarget t;
  if (::inet_pton(AF_INET, address.c_str(), &t.v4_address) == 1) {
    t.v4 = true;
    const std::string mapped = "::ffff:" + address;
    ::inet_pton(AF_INET6, mapped.c_str(), &t.v6);
  } else if (::inet_pton(AF_INET6, address.c_str(), &t.v6) != 1) {
    throw InputError("rank 0 cannot listen on '" + address + "': not a numeric IP address");
  }
  t.active = true;
  t.redirected = bind_target.redirected;
  bind_target = t;
}

ListenAddress::~ListenAddress() { bind_target.active = false; }

int ListenAddress::redirected() { return bind_target.redirected; }

}  // namespace accumlab

/// The C library's bind(), except for a wildcard address on a thread inside a ListenAddress.
extern "C" int bind(int fd, const sockaddr* address, socklen_t length) {
  using accumlab::bind_target;
  const auto real = accumlab::cLibraryBind();
  if (!bind_target.active || address == nullptr) return real(fd, address, length);
  if (address->sa_family == AF_INET6 && length >= sizeof(sockaddr_in6)) {
    sockaddr_in6 a;
    std::memcpy(&a, address, sizeof a);
    if (std::memcmp(&a.sin6_addr, &in6addr_any, sizeof a.sin6_addr) == 0) {
      a.sin6_addr = bind_target.v6;
      ++bind_target.redirected;
      return real(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a);
    }
  } else if (address->sa_family == AF_INET && length >= sizeof(sockaddr_in)) {
    sockaddr_in a;
    std::memcpy(&a, address, sizeof a);
    if (a.sin_addr.s_addr == htonl(INADDR_ANY)) {
      if (!bind_target.v4) {
        errno = EADDRNOTAVAIL;  // an IPv6 address cannot be an IPv4 socket's
        return -1;
      }
      a.sin_addr = bind_target.v4_address;
      ++bind_target.redirected;
      return real(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a);
    }
  }
  return real(fd, address, length);
}
