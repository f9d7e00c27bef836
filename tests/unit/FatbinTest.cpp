// Unit tests of the fatbinary writer and reader: the exact header layout fatbinary 13.0 writes, round
// trips in every compression scheme, and a reader that survives every truncation and lying size field.
#include "ptxlink/Fatbin.h"

#include "llvm/Support/Endian.h"

#include <gtest/gtest.h>
#include <zstd.h>

using namespace ptxlink;
using namespace llvm;

namespace {

const char *Ptx = ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k() { ret; }\n";

std::string write(ArrayRef<FatbinImage> Images, FatbinCompression C = FatbinCompression::None) {
  std::string Out;
  raw_string_ostream OS(Out);
  FatbinWriteOptions O;
  O.Compression = C;
  EXPECT_FALSE(errorToBool(writeFatbin(Images, O, OS)));
  return Out;
}

struct Warnings {
  std::vector<std::pair<uint64_t, std::string>> List;
  std::function<void(uint64_t, const Twine &)> fn() {
    return [this](uint64_t Off, const Twine &M) { List.emplace_back(Off, M.str()); };
  }
};

TEST(FatbinTest, PtxImageFromHeaderDirectives) {
  auto I = makePtxImage(Ptx);
  ASSERT_TRUE(bool(I)) << toString(I.takeError());
  EXPECT_EQ(I->Arch.Sm, 90u);
  EXPECT_TRUE(I->Arch.isArchSpecific());
  EXPECT_EQ(I->VersionMajor, 8);
  EXPECT_EQ(I->VersionMinor, 0);
  EXPECT_EQ(fatbinArchName(*I), "compute_90a");
  auto Bad = makePtxImage("// no header\n.entry k() { ret; }\n");
  EXPECT_FALSE(bool(Bad));
  consumeError(Bad.takeError());
  auto F = makePtxImage("/* c */ .version 9.0 // x\n.target sm_100f, debug\n");
  ASSERT_TRUE(bool(F));
  EXPECT_TRUE(F->Arch.isFamilySpecific());
  EXPECT_TRUE(F->Debug);
  EXPECT_EQ(F->Arch.Sm, 100u);
}

// The bytes fatbinary --create --compress-mode=none writes for one PTX image (measured, see
// docs/nvidia-formats.md): a 16-byte container header, a 0x50-byte entry header with an empty options
// record at 0x40, the text with a NUL, padded to 8.
TEST(FatbinTest, PtxEntryLayoutMatchesFatbinary) {
  auto I = makePtxImage(".version 9.0\n.target sm_90\n");
  ASSERT_TRUE(bool(I));
  std::string F = write({*I});
  std::string Text = ".version 9.0\n.target sm_90\n"; // 27 bytes + NUL = 28, padded to 32
  ASSERT_EQ(F.size(), 16u + 0x50 + 32);
  const char *D = F.data();
  EXPECT_EQ(support::endian::read32le(D), 0xBA55ED50u);
  EXPECT_EQ(support::endian::read16le(D + 4), 1);
  EXPECT_EQ(support::endian::read16le(D + 6), 16);
  EXPECT_EQ(support::endian::read64le(D + 8), 0x50u + 32);
  const char *E = D + 16;
  EXPECT_EQ(support::endian::read16le(E + 0), 1);      // PTX
  EXPECT_EQ(support::endian::read16le(E + 2), 0x0101); // entry version
  EXPECT_EQ(support::endian::read32le(E + 4), 0x50u);  // header size
  EXPECT_EQ(support::endian::read64le(E + 8), 32u);    // payload size, padded
  EXPECT_EQ(support::endian::read32le(E + 0x14), 0x40u); // options record
  EXPECT_EQ(support::endian::read16le(E + 0x18), 0);   // minor
  EXPECT_EQ(support::endian::read16le(E + 0x1A), 9);   // major
  EXPECT_EQ(support::endian::read32le(E + 0x1C), 90u);
  EXPECT_EQ(support::endian::read64le(E + 0x28), 0x11u); // 64-bit, host Linux
  EXPECT_EQ(support::endian::read32le(E + 0x40), 0x48u); // options data offset
  EXPECT_EQ(support::endian::read32le(E + 0x44), 0u);    // options data length
  EXPECT_EQ(StringRef(E + 0x50, Text.size()), Text);
  EXPECT_EQ(E[0x50 + Text.size()], '\0');
}

TEST(FatbinTest, IdentifierAndOptionsArePaddedLikeFatbinary) {
  auto I = makePtxImage(".version 9.0\n.target sm_90\n");
  ASSERT_TRUE(bool(I));
  I->Identifier = "hello.cu";
  I->Options = "-O3";
  std::string F = write({*I});
  const char *E = F.data() + 16;
  EXPECT_EQ(support::endian::read32le(E + 4), 0x60u);    // 0x40 + ident 16 + record 8 + data 8
  EXPECT_EQ(support::endian::read32le(E + 0x20), 0x40u); // ident offset
  EXPECT_EQ(support::endian::read32le(E + 0x24), 8u);
  EXPECT_EQ(support::endian::read32le(E + 0x14), 0x50u);
  EXPECT_EQ(support::endian::read32le(E + 0x50), 0x58u);
  EXPECT_EQ(support::endian::read32le(E + 0x54), 3u);
  Warnings W;
  auto R = readFatbin(F, W.fn());
  ASSERT_EQ(R.size(), 1u);
  EXPECT_EQ(R[0].Identifier, "hello.cu");
  EXPECT_EQ(R[0].Options, "-O3");
  EXPECT_TRUE(W.List.empty());
}

TEST(FatbinTest, RoundTripEveryCompression) {
  auto P = makePtxImage(Ptx);
  ASSERT_TRUE(bool(P));
  FatbinImage Elf;
  Elf.Kind = FatbinKind::Elf;
  Elf.Arch.Sm = 80;
  Elf.VersionMajor = 1;
  Elf.VersionMinor = 8;
  Elf.Payload = std::string(1000, 'x') + "tail";
  for (auto C : {FatbinCompression::None, FatbinCompression::Lz4, FatbinCompression::Zstd}) {
    std::string F = write({Elf, *P}, C);
    ASSERT_TRUE(isFatbin(F));
    Warnings W;
    auto R = readFatbin(F, W.fn());
    ASSERT_EQ(R.size(), 2u) << fatbinCompressionName(C).str();
    EXPECT_TRUE(W.List.empty());
    EXPECT_EQ(R[0].Kind, FatbinKind::Elf);
    EXPECT_EQ(R[0].Compression, FatbinCompression::None); // ELF images are not compressed by default
    EXPECT_EQ(StringRef(R[0].Payload).take_front(Elf.Payload.size()), Elf.Payload);
    EXPECT_EQ(R[0].Payload.size() % 8, 0u);
    EXPECT_EQ(R[1].Kind, FatbinKind::Ptx);
    EXPECT_EQ(R[1].Compression, C);
    EXPECT_EQ(R[1].Payload, Ptx);
    EXPECT_EQ(R[1].Arch.Sm, 90u);
    EXPECT_TRUE(R[1].Arch.isArchSpecific());
    EXPECT_EQ(R[1].EntryOffset, 16u + 0x40 + R[0].StoredSize);
    if (C != FatbinCompression::None) {
      EXPECT_EQ(R[1].UncompressedSize, strlen(Ptx) + 1);
      EXPECT_NE(R[1].CompressedSize, 0u);
    }
    // Not decompressing leaves the stored bytes.
    auto Raw = readFatbin(F, W.fn(), /*Decompress=*/false);
    ASSERT_EQ(Raw.size(), 2u);
    if (C != FatbinCompression::None) {
      EXPECT_EQ(Raw[1].Payload.size(), Raw[1].CompressedSize);
    }
  }
}

// The --compress values ptxlink and ptxlink-dump both take (one parser, in objtools).
TEST(FatbinTest, CompressionSettingParser) {
  auto Parse = [](StringRef Text) { return parseFatbinCompression(Text); };
  auto Zstd = Parse("zstd");
  ASSERT_TRUE(bool(Zstd));
  EXPECT_EQ(Zstd->Scheme, FatbinCompression::Zstd);
  EXPECT_EQ(Zstd->Level, 0);
  auto Zstd22 = Parse("zstd:22");
  ASSERT_TRUE(bool(Zstd22));
  EXPECT_EQ(Zstd22->Level, 22);
  auto Lz4Hc = Parse("lz4:9");
  ASSERT_TRUE(bool(Lz4Hc));
  EXPECT_EQ(Lz4Hc->Scheme, FatbinCompression::Lz4);
  EXPECT_EQ(Lz4Hc->Level, 9);
  auto None = Parse("none");
  ASSERT_TRUE(bool(None));
  EXPECT_EQ(None->Scheme, FatbinCompression::None);
  for (StringRef Bad : {"gzip", "zstd:0", "zstd:23", "lz4:13", "none:1", "zstd:x", "ZSTD", ""}) {
    auto R = Parse(Bad);
    ASSERT_FALSE(bool(R)) << Bad.str();
    EXPECT_EQ(toString(R.takeError()), "--compress takes zstd[:1-22], lz4[:1-12] or none, got '" + Bad.str() + "'");
  }
}

TEST(FatbinTest, SeveralContainersWithPaddingBetween) {
  auto P = makePtxImage(Ptx);
  ASSERT_TRUE(bool(P));
  std::string F = write({*P}) + std::string(8, '\0') + write({*P}, FatbinCompression::Zstd);
  Warnings W;
  auto R = readFatbin(F, W.fn());
  EXPECT_EQ(R.size(), 2u);
  EXPECT_TRUE(W.List.empty());
}

// Every prefix of a valid file: no crash, a warning for each cut inside an entry, and the images
// before the cut still returned.
TEST(FatbinTest, EveryTruncationIsReportedNotFatal) {
  auto P = makePtxImage(Ptx);
  ASSERT_TRUE(bool(P));
  std::string F = write({*P, *P}, FatbinCompression::Lz4);
  for (size_t N = 1; N < F.size(); ++N) {
    Warnings W;
    auto R = readFatbin(StringRef(F).take_front(N), W.fn());
    EXPECT_FALSE(W.List.empty()) << "cut at " << N;
    EXPECT_LE(R.size(), 2u);
    for (auto &[Off, Msg] : W.List)
      EXPECT_LE(Off, N) << Msg;
  }
}

TEST(FatbinTest, LyingSizesDoNotAllocateOrCrash) {
  auto P = makePtxImage(Ptx);
  ASSERT_TRUE(bool(P));
  std::string Good = write({*P, *P}, FatbinCompression::Zstd);
  auto Patch64 = [](std::string S, size_t Off, uint64_t V) {
    support::endian::write64le(&S[Off], V);
    return S;
  };
  auto Patch32 = [](std::string S, size_t Off, uint32_t V) {
    support::endian::write32le(&S[Off], V);
    return S;
  };
  {
    Warnings W; // uncompressed size of the first image: 2^62
    auto R = readFatbin(Patch64(Good, 16 + 0x38, uint64_t(1) << 62), W.fn());
    ASSERT_FALSE(W.List.empty());
    EXPECT_EQ(W.List[0].first, 16u + 0x50); // the payload's offset
    EXPECT_EQ(R.size(), 1u);                 // the second image is still read
  }
  {
    Warnings W; // payload size beyond the file
    auto R = readFatbin(Patch64(Good, 16 + 8, uint64_t(1) << 40), W.fn());
    EXPECT_FALSE(W.List.empty());
    EXPECT_LE(R.size(), 1u);
  }
  {
    Warnings W; // container size beyond the file
    auto R = readFatbin(Patch64(Good, 8, uint64_t(1) << 50), W.fn());
    EXPECT_FALSE(W.List.empty());
    EXPECT_EQ(R.size(), 2u);
  }
  {
    Warnings W; // entry header size 0: cannot continue, reported at the field
    auto R = readFatbin(Patch32(Good, 16 + 4, 0), W.fn());
    ASSERT_EQ(W.List.size(), 1u);
    EXPECT_EQ(W.List[0].first, 16u + 4);
    EXPECT_TRUE(R.empty());
  }
  {
    Warnings W; // options record pointing far outside the header
    auto R = readFatbin(Patch32(Good, 16 + 0x14, 0x7fffffff), W.fn());
    EXPECT_FALSE(W.List.empty());
    EXPECT_EQ(R.size(), 2u);
  }
  {
    Warnings W; // corrupt zstd frame
    std::string S = Good;
    S[16 + 0x50 + 6] ^= 0x55;
    S[16 + 0x50 + 7] ^= 0x55;
    auto R = readFatbin(S, W.fn());
    EXPECT_FALSE(W.List.empty());
    EXPECT_GE(R.size(), 1u);
  }
}

// nvcc -dlto's compressed LTO-IR: flags 0x18011 (the zstd bit, but no zstd frame), a value in the
// reserved field. Read as an opaque image without a warning.
TEST(FatbinTest, CompressedLtoIrIsOpaque) {
  FatbinImage I;
  I.Kind = FatbinKind::LtoIr;
  I.Arch.Sm = 90;
  I.Payload = "\x4c\xd9\x79\x2a opaque bytes";
  std::string F = write({I});
  support::endian::write64le(&F[16 + 0x28], 0x18011);
  support::endian::write64le(&F[16 + 0x30], 0x97be7a02);
  support::endian::write32le(&F[16 + 0x10], uint32_t(I.Payload.size()));
  support::endian::write64le(&F[16 + 0x38], 2976);
  Warnings W;
  auto R = readFatbin(F, W.fn());
  ASSERT_EQ(R.size(), 1u);
  EXPECT_TRUE(W.List.empty());
  EXPECT_EQ(R[0].Compression, FatbinCompression::Unknown);
  EXPECT_EQ(R[0].Payload, I.Payload);
}

TEST(FatbinTest, DecompressionIsBounded) {
  // A zstd frame of a megabyte of zeros declared as 100 bytes: stopped after 101 bytes of output.
  std::string Zeros(1 << 20, '\0');
  std::string Frame(ZSTD_compressBound(Zeros.size()), '\0');
  Frame.resize(ZSTD_compress(Frame.data(), Frame.size(), Zeros.data(), Zeros.size(), 3));
  auto Over = decompressFatbinPayload(Frame, FatbinCompression::Zstd, 100);
  ASSERT_FALSE(bool(Over));
  EXPECT_NE(toString(Over.takeError()).find("more than"), std::string::npos);
  // The right size decompresses.
  auto Exact = decompressFatbinPayload(Frame, FatbinCompression::Zstd, Zeros.size());
  ASSERT_TRUE(bool(Exact));
  EXPECT_EQ(*Exact, Zeros);
  // A declared size far beyond any plausible ratio is refused before allocating.
  auto Huge = decompressFatbinPayload(Frame, FatbinCompression::Zstd, uint64_t(1) << 40);
  ASSERT_FALSE(bool(Huge));
  EXPECT_NE(toString(Huge.takeError()).find("implausible"), std::string::npos);
  auto Z = decompressFatbinPayload("not zstd", FatbinCompression::Zstd, 100);
  EXPECT_FALSE(bool(Z));
  consumeError(Z.takeError());
  auto L = decompressFatbinPayload("\x10", FatbinCompression::Lz4, uint64_t(1) << 40);
  EXPECT_FALSE(bool(L));
  consumeError(L.takeError());
}

TEST(FatbinTest, PayloadTrueSizeOfPaddedElf) {
  // A minimal ELF64 header with no sections: its extent is the header itself.
  std::string Elf(64, '\0');
  memcpy(&Elf[0], "\x7f" "ELF\x02\x01\x01", 7);
  support::endian::write16le(&Elf[0x34], 64);
  FatbinImage I;
  I.Kind = FatbinKind::Elf;
  I.Payload = Elf + std::string(8, '\0');
  EXPECT_EQ(payloadTrueSize(I), 64u);
  I.Kind = FatbinKind::Ptx;
  I.Payload = std::string("abc\0\0\0\0\0", 8);
  EXPECT_EQ(payloadTrueSize(I), 3u);
}

} // namespace
