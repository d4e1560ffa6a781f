// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <c10/util/hash.h>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace accumlab {

// Proofs that a rank of a run on several machines knows the shared token, without the token
// ever travelling or being stored: each rank puts HMAC(token, its role and rank 0's random
// salt) in the rendezvous store, and the others recompute it.
//
// The hash is LibTorch's header-only c10::sha1 (c10/util/hash.h, in LibTorch 1.13 and 2.x), in
// HMAC (RFC 2104): it adds no library to the build or the package (OpenSSL's libcrypto would),
// and HMAC-SHA1 remains a sound MAC, since HMAC's security rests on SHA-1's compression
// function as a pseudo-random function, not on its broken collision resistance (RFC 6194 §3).

/// The 20 bytes that 40 hex digits spell.
inline std::string bytesOfHex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

/// HMAC-SHA1 of `message` under `key`, as 40 hex digits (RFC 2104; RFC 2202 has test vectors).
inline std::string hmacSha1Hex(const std::string& key, const std::string& message) {
  constexpr size_t kBlock = 64;  // SHA-1's block size in bytes
  // Never hash "": c10::sha1 of an empty string skips its initialisation.
  std::string k = key.size() > kBlock ? bytesOfHex(c10::sha1(key).str()) : key;
  k.resize(kBlock, '\0');
  std::string inner(kBlock, '\0');
  std::string outer(kBlock, '\0');
  for (size_t i = 0; i < kBlock; ++i) {
    inner[i] = static_cast<char>(k[i] ^ 0x36);
    outer[i] = static_cast<char>(k[i] ^ 0x5c);
  }
  const std::string inner_digest = bytesOfHex(c10::sha1(inner + message).str());
  return c10::sha1(outer + inner_digest).str();
}

/// `n` bytes from the kernel's random source as 2n hex digits (a salt); throws
/// std::runtime_error when it cannot be read.
inline std::string randomHex(size_t n) {
  std::FILE* f = std::fopen("/dev/urandom", "rb");
  std::string raw(n, '\0');
  const bool read = f && std::fread(raw.data(), 1, n, f) == n;
  if (f) std::fclose(f);
  if (!read) throw std::runtime_error("cannot read /dev/urandom");
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : raw) {
    hex.push_back(kDigits[c >> 4]);
    hex.push_back(kDigits[c & 15]);
  }
  return hex;
}

/// Whether two proofs are equal, in a time that does not depend on where they differ.
inline bool sameProof(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

/// What rank `rank` of the run whose rank 0 drew `salt` puts in the store to show that it
/// knows `token`.
inline std::string tokenProof(const std::string& token, int rank, const std::string& salt) {
  return hmacSha1Hex(token, "accumlab rendezvous|rank " + std::to_string(rank) + "|" + salt);
}

}  // namespace accumlab
