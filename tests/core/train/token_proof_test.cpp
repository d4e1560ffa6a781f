// SPDX-License-Identifier: GPL-3.0-or-later
// The proofs of the shared token at a rendezvous on several machines (train/token_proof.h):
// HMAC-SHA1 as RFC 2202 gives it, bound to the rank and the salt, never the token itself.
#include "train/token_proof.h"

#include <gtest/gtest.h>

#include <string>

namespace accumlab {
namespace {

TEST(TokenProof, HmacSha1MatchesRfc2202) {
  EXPECT_EQ(hmacSha1Hex(std::string(20, '\x0b'), "Hi There"),
            "b617318655057264e28bc0b6fb378c8ef146be00");
  EXPECT_EQ(hmacSha1Hex("Jefe", "what do ya want for nothing?"),
            "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79");
  // A key longer than SHA-1's 64-byte block is hashed first.
  EXPECT_EQ(hmacSha1Hex(std::string(80, '\xaa'),
                        "Test Using Larger Than Block-Size Key - Hash Key First"),
            "aa4ae5e15272d00e95705637ce8a3b55ed402112");
}

TEST(TokenProof, DependsOnTokenRankAndSaltAndHidesTheToken) {
  const std::string token = "0123456789abcdef0123456789abcdef";
  const std::string salt = randomHex(16);
  ASSERT_EQ(salt.size(), 32u);
  EXPECT_NE(randomHex(16), salt);
  const std::string proof = tokenProof(token, 1, salt);
  EXPECT_EQ(proof.size(), 40u);
  EXPECT_EQ(proof.find(token), std::string::npos);
  EXPECT_EQ(proof, tokenProof(token, 1, salt));
  EXPECT_NE(proof, tokenProof(token, 0, salt));
  EXPECT_NE(proof, tokenProof(token, 1, randomHex(16)));
  EXPECT_NE(proof, tokenProof(token + "x", 1, salt));
  EXPECT_TRUE(sameProof(proof, tokenProof(token, 1, salt)));
  EXPECT_FALSE(sameProof(proof, tokenProof(token, 2, salt)));
  EXPECT_FALSE(sameProof(proof, proof.substr(1)));
}

}  // namespace
}  // namespace accumlab
