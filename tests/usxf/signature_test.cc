// USXF signatures: trust comes from the receiver's keyring only. Trusted, untrusted,
// missing-when-required, a valid signature over swapped contents, and signing an
// existing file (sealing it first when needed).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <xxhash.h>

#include <fstream>
#include <thread>

#include "common/file_util.h"
#include "test_util.h"
#include "usxf/le.h"
#include "usxf/usxf_test_util.h"
#include "vexfs/usxf.h"
#include "vexfs/usxf_io.h"
#include "vexfs/usxf_keys.h"

namespace vexfs::usxf {
namespace {

class UsxfSignatureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto a = SigningKey::Generate();
    auto b = SigningKey::Generate();
    ASSERT_TRUE(a.ok() && b.ok());
    alice_ = *a;
    mallory_ = *b;
    ASSERT_EQ(::mkdir(dir_.Sub("keyring").c_str(), 0755), 0);
    ASSERT_OK(SavePublicKey(dir_.Sub("keyring/alice.pub"), alice_.public_key));
    auto ring = Keyring::Load(dir_.Sub("keyring"));
    ASSERT_TRUE(ring.ok()) << ring.status().ToString();
    keyring_ = *ring;
  }

  std::string Write(const std::string& name, const std::string& bytes) {
    std::string path = dir_.Sub(name);
    EXPECT_OK(WriteFileAtomically(path, bytes));
    return path;
  }

  VerifyReport Verify(const std::string& path, const Keyring* ring) {
    VerifyOptions options;
    options.keyring = ring;
    return VerifyFile(path, options);
  }

  vexfs::test::TempDir dir_;
  SigningKey alice_, mallory_;
  Keyring keyring_;
};

TEST_F(UsxfSignatureTest, TrustedSignatureVerifies) {
  test::SampleOptions o;
  o.signers = {&alice_};
  VerifyReport r = Verify(Write("a.usxf", test::SampleFile(o)), &keyring_);
  EXPECT_OK(r.status);
  ASSERT_EQ(r.signatures.size(), 1u);
  EXPECT_TRUE(r.signatures[0].trusted);
  EXPECT_TRUE(r.signatures[0].valid);
  EXPECT_EQ(r.signatures[0].keyring_name, "alice.pub");
  EXPECT_EQ(r.signatures[0].fingerprint, alice_.public_key.Fingerprint());
}

TEST_F(UsxfSignatureTest, UntrustedSignerIsRefusedEvenThoughTheSignatureIsValid) {
  test::SampleOptions o;
  o.signers = {&mallory_};  // mallory's key travels in the file; it proves nothing
  VerifyReport r = Verify(Write("m.usxf", test::SampleFile(o)), &keyring_);
  EXPECT_CODE(r.status, StatusCode::kPermissionDenied);
  EXPECT_NE(r.status.message().find("outside the keyring"), std::string::npos) << r.status.ToString();
  ASSERT_EQ(r.signatures.size(), 1u);
  EXPECT_FALSE(r.signatures[0].trusted);
  EXPECT_FALSE(r.signatures[0].valid);
}

TEST_F(UsxfSignatureTest, MissingSignatureFailsWhenAKeyringRequiresOne) {
  std::string path = Write("u.usxf", test::SampleFile());
  VerifyReport r = Verify(path, &keyring_);
  EXPECT_CODE(r.status, StatusCode::kPermissionDenied);
  EXPECT_NE(r.status.message().find("not signed"), std::string::npos);
  EXPECT_OK(Verify(path, nullptr).status) << "unsigned and no keyring: digests only";
}

TEST_F(UsxfSignatureTest, SignedFileWithoutAKeyringIsNotAccepted) {
  test::SampleOptions o;
  o.signers = {&alice_};
  VerifyReport r = Verify(Write("a.usxf", test::SampleFile(o)), nullptr);
  EXPECT_CODE(r.status, StatusCode::kPermissionDenied);
  EXPECT_NE(r.status.message().find("no keyring"), std::string::npos);
}

TEST_F(UsxfSignatureTest, ValidSignatureOverASwappedSectionIsRefused) {
  test::SampleOptions o;
  o.signers = {&alice_};
  std::string file = test::SampleFile(o);
  // Swap the blob's contents and re-seal every digest and the root, as an
  // attacker without alice's key can; the signature then covers another root.
  auto m = MappedFile::FromBytes(file);
  ASSERT_TRUE(m.ok());
  const SectionInfo blob = (*m)->sections()[0];
  std::string forged = file;
  forged.replace(blob.offset, 4, "WHAT");
  test::ResealFooter(&forged);
  VerifyReport r = Verify(Write("f.usxf", forged), &keyring_);
  EXPECT_CODE(r.status, StatusCode::kPermissionDenied);
  EXPECT_NE(r.status.message().find("does not verify"), std::string::npos) << r.status.ToString();
  // Without re-sealing, the damage is named as the section's.
  forged = file;
  forged.replace(blob.offset, 4, "WHAT");
  r = Verify(Write("g.usxf", forged), &keyring_);
  EXPECT_CODE(r.status, StatusCode::kCorruption);
  EXPECT_NE(r.status.message().find("section 0 'notes'"), std::string::npos) << r.status.ToString();
}

TEST_F(UsxfSignatureTest, SignFileSealsAndAddsSignatures) {
  test::SampleOptions o;
  o.seal = false;
  std::string path = Write("s.usxf", test::SampleFile(o));
  EXPECT_CODE(Verify(path, nullptr).status, StatusCode::kInvalidArgument) << "not sealed";
  ASSERT_OK(SignFile(path, mallory_));
  ASSERT_OK(SignFile(path, alice_));
  EXPECT_CODE(SignFile(path, alice_), StatusCode::kAlreadyExists);
  VerifyReport r = Verify(path, &keyring_);
  EXPECT_OK(r.status);
  ASSERT_EQ(r.signatures.size(), 2u);
  EXPECT_FALSE(r.signatures[0].trusted);
  EXPECT_TRUE(r.signatures[1].valid);
  // Contents untouched by signing.
  auto m = MappedFile::Open(path);
  ASSERT_TRUE(m.ok());
  std::string storage;
  auto notes = (*m)->Values(0, &storage);
  ASSERT_TRUE(notes.ok());
  EXPECT_EQ(*notes, "what I learned about retries: back off, then give up.");
}

TEST_F(UsxfSignatureTest, DamagedSignatureByATrustedKeyIsRefused) {
  test::SampleOptions o;
  o.signers = {&alice_};
  std::string file = test::SampleFile(o);
  // Flip a bit of the signature itself and repair the footer checksum.
  auto m = MappedFile::FromBytes(file);
  ASSERT_TRUE(m.ok());
  std::string forged = file;
  const size_t sig_at = forged.size() - 24 - 64;
  forged[sig_at] = static_cast<char>(forged[sig_at] ^ 1);
  test::ResealFooter(&forged);
  VerifyReport r = Verify(Write("d.usxf", forged), &keyring_);
  EXPECT_CODE(r.status, StatusCode::kPermissionDenied);
  EXPECT_NE(r.status.message().find("does not verify"), std::string::npos) << r.status.ToString();
}

TEST_F(UsxfSignatureTest, ARootThatDoesNotMatchTheDigestsIsRefused) {
  test::SampleOptions o;
  o.signers = {&alice_};
  std::string file = test::SampleFile(o);
  // Change the root in the footer and repair only the footer's checksum.
  const size_t n = 3, root_at = file.size() - 24 - 104 - 32;
  ASSERT_EQ(root_at, file.size() - 24 - 104 - 32);
  (void)n;
  file[root_at] = static_cast<char>(file[root_at] ^ 1);
  const size_t sum_at = file.size() - 16;
  StoreLE<uint64_t>(file.data() + sum_at, XXH3_64bits(file.data() + (file.size() - LoadLE<uint64_t>(file.data() + file.size() - 24)),
                                                      sum_at - (file.size() - LoadLE<uint64_t>(file.data() + file.size() - 24))));
  VerifyReport r = Verify(Write("r.usxf", file), &keyring_);
  EXPECT_CODE(r.status, StatusCode::kCorruption);
  EXPECT_NE(r.status.message().find("Merkle root does not match"), std::string::npos) << r.status.ToString();
}

TEST_F(UsxfSignatureTest, ConcurrentSignersBothKeepTheirSignatures) {
  std::string path = Write("c.usxf", test::SampleFile());
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  for (int round = 0; round < 5; ++round) {
    std::string p = Write("c" + std::to_string(round) + ".usxf", test::SampleFile());
    Status a, b;
    std::thread t([&] { a = SignFile(p, alice_); });
    b = SignFile(p, mallory_);
    t.join();
    ASSERT_OK(a);
    ASSERT_OK(b);
    auto m = MappedFile::Open(p);
    ASSERT_TRUE(m.ok());
    EXPECT_EQ((*m)->summary().signatures.size(), 2u) << "round " << round;
  }
  ASSERT_OK(SignFile(path, alice_));
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u) << "signing keeps the file's permissions";
}

TEST_F(UsxfSignatureTest, KeysRoundTripThroughFilesAndBadKeysAreNamed) {
  ASSERT_OK(alice_.Save(dir_.Sub("alice.key")));
  struct stat st;
  ASSERT_EQ(::stat(dir_.Sub("alice.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto loaded = SigningKey::Load(dir_.Sub("alice.key"));
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->public_key, alice_.public_key);
  auto pub = LoadPublicKey(dir_.Sub("alice.key.pub"));
  ASSERT_TRUE(pub.ok());
  EXPECT_EQ(*pub, alice_.public_key);
  EXPECT_CODE(alice_.Save(dir_.Sub("alice.key")), StatusCode::kAlreadyExists);
  std::ofstream(dir_.Sub("keyring/junk.pub")) << "not a key\n";
  auto ring = Keyring::Load(dir_.Sub("keyring"));
  EXPECT_CODE(ring.status(), StatusCode::kInvalidArgument);
  EXPECT_NE(ring.status().message().find("junk.pub"), std::string::npos);
  EXPECT_CODE(Keyring::Load(dir_.Sub("nowhere")).status(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace vexfs::usxf
