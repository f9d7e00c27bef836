// Unit tests of streamed fatbinary payloads (FatbinImage::PayloadWriter, used by the linker so the
// printed program is never held in memory): the container must be byte-identical to the one written
// from the same bytes held in Payload, whatever the payload (embedded NUL, odd sizes, large, several
// images, compression), and a writer that produces different bytes the second time is an error. Written
// into a file it may patch (FatbinWriteOptions::PatchableFile), each payload is generated only once and
// the sizes are filled in afterwards: the bytes must be the same again, also where the writer lends its
// text (GatherStream::writeBorrowed) and the file takes it by reference (GatheringFdStream).
#include "ptxlink/Fatbin.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

using namespace ptxlink;
using namespace llvm;

namespace {

std::string write(ArrayRef<FatbinImage> Images, FatbinCompression C = FatbinCompression::None) {
  std::string Out;
  raw_string_ostream OS(Out);
  FatbinWriteOptions O;
  O.Compression = C;
  Error E = writeFatbin(Images, O, OS);
  EXPECT_FALSE(bool(E)) << toString(std::move(E));
  return Out;
}

FatbinImage ptxImage(uint32_t Sm) {
  FatbinImage I;
  I.Kind = FatbinKind::Ptx;
  I.Arch.Sm = Sm;
  I.VersionMajor = 8;
  I.VersionMinor = 0;
  return I;
}

using WriterFor = std::function<std::function<void(GatherStream &)>(const std::string &)>;

// Per text, an image holding it in Payload (Held) and one whose PayloadWriter, made by Writer, produces it
// (Written). Texts must outlive the images.
void heldAndWritten(const std::vector<std::string> &Texts, const WriterFor &Writer, std::vector<FatbinImage> &Held,
                    std::vector<FatbinImage> &Written) {
  for (size_t I = 0; I < Texts.size(); ++I) {
    FatbinImage A = ptxImage(80 + 10 * uint32_t(I));
    A.Payload = Texts[I];
    Held.push_back(A);
    FatbinImage B = ptxImage(80 + 10 * uint32_t(I));
    B.PayloadWriter = Writer(Texts[I]);
    Written.push_back(B);
  }
}

// The same images twice: once with the bytes in Payload, once produced by PayloadWriter in small pieces.
void expectSame(const std::vector<std::string> &Texts, FatbinCompression C = FatbinCompression::None) {
  std::vector<FatbinImage> Held, Streamed;
  heldAndWritten(Texts, [](const std::string &T) {
    return [&T](raw_ostream &OS) {
      for (size_t Off = 0; Off < T.size(); Off += 7)
        OS << StringRef(T).substr(Off, 7);
    };
  }, Held, Streamed);
  EXPECT_EQ(write(Held, C), write(Streamed, C));
}

TEST(FatbinStreamTest, SameBytesAsHeldPayload) {
  expectSame({".version 8.0\n.target sm_80\n.address_size 64\n"});
  expectSame({""});
  expectSame({"x", "12345678", "1234567"});
}

TEST(FatbinStreamTest, CutAtEmbeddedNul) {
  expectSame({std::string("before\0after", 12)});
  expectSame({std::string("\0", 1) + "rest"});
}

TEST(FatbinStreamTest, LargePayloadBeyondStreamBuffer) {
  std::string Big;
  for (int I = 0; Big.size() < 300000; ++I)
    Big += "  add.s32 %r" + std::to_string(I) + ", %r1, 1;\n";
  expectSame({Big, Big.substr(0, 100001)});
}

TEST(FatbinStreamTest, CompressedImagesAreMaterialized) {
  expectSame({"some ptx text some ptx text some ptx text"}, FatbinCompression::Zstd);
  expectSame({"some ptx text some ptx text some ptx text"}, FatbinCompression::Lz4);
}

// Writes into a temporary file with PatchableFile set; returns the file's bytes and how often the
// writers ran.
std::string writePatched(ArrayRef<FatbinImage> Images) {
  SmallString<128> Path;
  int FD = -1;
  EXPECT_FALSE(sys::fs::createTemporaryFile("fatbin-stream", "bin", FD, Path));
  {
    GatheringFdStream OS(FD, /*shouldClose=*/true);
    OS.SetBufferSize(4096); // small, so payloads cross many buffer boundaries
    OS << "prefix"; // the container need not start at offset 0
    FatbinWriteOptions O;
    O.PatchableFile = &OS;
    Error E = writeFatbin(Images, O, OS);
    EXPECT_FALSE(bool(E)) << toString(std::move(E));
  }
  auto Buffer = MemoryBuffer::getFile(Path);
  sys::fs::remove(Path);
  EXPECT_TRUE(bool(Buffer));
  return Buffer ? (*Buffer)->getBuffer().drop_front(6).str() : "";
}

TEST(FatbinStreamTest, PatchedFileHasTheSameBytesAndGeneratesOnce) {
  std::string Big;
  for (int I = 0; Big.size() < 30000; ++I)
    Big += "  add.s32 %r" + std::to_string(I) + ", %r1, 1;\n";
  std::vector<std::string> Texts = {Big, "", std::string("cut\0here", 8), Big.substr(0, 4097)};
  std::vector<FatbinImage> Held, Streamed;
  int Calls = 0;
  heldAndWritten(Texts, [&Calls](const std::string &T) {
    return [&T, &Calls](raw_ostream &OS) {
      ++Calls;
      for (size_t Off = 0; Off < T.size(); Off += 5)
        OS << StringRef(T).substr(Off, 5);
    };
  }, Held, Streamed);
  std::string Expected = write(Held);
  EXPECT_EQ(Expected, writePatched(Streamed));
  EXPECT_EQ(Calls, int(Texts.size())); // once per image, not twice
  EXPECT_EQ(Expected, writePatched(Held)); // nothing to patch: unchanged
}

// Lent runs of every length (1 byte to the whole text, far more than one writev takes), between copied
// pieces, an embedded NUL in a lent run: the same bytes as held payloads, in a file and in a string.
TEST(FatbinStreamTest, LentTextGivesTheSameBytes) {
  std::string Big;
  for (int I = 0; Big.size() < 3000000; ++I)
    Big += "  add.s32 %r" + std::to_string(I) + ", %r1, 1;\n";
  std::vector<std::string> Texts = {Big, std::string("lent\0cut", 9), "x", Big.substr(0, 100000)};
  std::vector<FatbinImage> Held, Lent;
  heldAndWritten(Texts, [](const std::string &T) {
    return [&T](GatherStream &OS) {
      // Runs of 1, 2, 3, ... bytes, lent and copied by turns, then the rest lent whole.
      size_t Off = 0;
      for (size_t Len = 1; Off < T.size() && Len < 3000; Off += Len, ++Len) {
        StringRef Run = StringRef(T).substr(Off, Len);
        if (Len % 2)
          OS.writeBorrowed(Run);
        else
          OS << Run;
      }
      OS.writeBorrowed(StringRef(T).substr(Off));
    };
  }, Held, Lent);
  std::string Expected = write(Held);
  EXPECT_EQ(Expected, writePatched(Lent));
  EXPECT_EQ(Expected, write(Lent));
}

// Written into a file, a payload's small writes are lent from a window of the payload stream's arena
// (1 MB), which moves on and starts over once the file has written what waits: several megabytes of
// small writes (the window filling up whole, again and again), single writes larger than the window
// (passed through as copies) and lent runs between them give the same bytes as held payloads.
TEST(FatbinStreamTest, CopiedTextBeyondTheArena) {
  std::string Big;
  for (int I = 0; Big.size() < 3500000; ++I)
    Big += "  mov.u32 %r" + std::to_string(I) + ", " + std::to_string(I * 7) + ";\n";
  std::vector<std::string> Texts = {Big, Big.substr(0, 1500000)};
  std::vector<FatbinImage> Held, Mixed;
  heldAndWritten(Texts, [](const std::string &T) {
    return [&T](GatherStream &OS) {
      StringRef Rest(T);
      for (int Turn = 0; !Rest.empty(); ++Turn) {
        // Small writes for about 1.3 MB, then a 1.2 MB write in one piece, then a lent run of 1000 bytes.
        StringRef Small = Rest.take_front(1300000);
        for (size_t Off = 0; Off < Small.size(); Off += 13)
          OS << Small.substr(Off, 13);
        Rest = Rest.drop_front(Small.size());
        StringRef Large = Rest.take_front(1200000);
        OS << Large;
        Rest = Rest.drop_front(Large.size());
        OS.writeBorrowed(Rest.take_front(1000));
        Rest = Rest.drop_front(std::min<size_t>(1000, Rest.size()));
        // Pieces of 2000 bytes, each flushed by a lent byte: the arena fills before the file's waiting
        // list is long enough to be written on its own.
        for (int Piece = 0; Piece < 600 && !Rest.empty(); ++Piece) {
          OS << Rest.take_front(2000);
          Rest = Rest.drop_front(std::min<size_t>(2000, Rest.size()));
          OS.writeBorrowed(Rest.take_front(1));
          Rest = Rest.drop_front(std::min<size_t>(1, Rest.size()));
        }
      }
    };
  }, Held, Mixed);
  const std::string Expected = write(Held), Patched = writePatched(Mixed), Plain = write(Mixed);
  EXPECT_TRUE(Expected == Patched) << "the file differs (" << Patched.size() << " bytes, " << Expected.size() << " expected)";
  EXPECT_TRUE(Expected == Plain) << "the string differs";
}

TEST(FatbinStreamTest, WriterThatChangesIsAnError) {
  FatbinImage I = ptxImage(80);
  int Calls = 0;
  I.PayloadWriter = [&Calls](raw_ostream &OS) { OS << (Calls++ == 0 ? "short" : "longer text"); };
  std::string Out;
  raw_string_ostream OS(Out);
  Error E = writeFatbin({I}, FatbinWriteOptions(), OS);
  EXPECT_TRUE(bool(E));
  consumeError(std::move(E));
}

} // namespace

// packFatbinImage (a PTX image compressed ahead, on another thread in the linker): the container is the
// same as when writeFatbin compresses, for held and streamed payloads, with an embedded NUL, for zstd
// and LZ4; a packed image written with another compression than it was packed with is an error; without
// compression packing does nothing.
TEST(FatbinStreamTest, PackedAheadGivesTheSameBytes) {
  std::string Big;
  for (int I = 0; Big.size() < 200000; ++I)
    Big += "  add.s32 %r" + std::to_string(I) + ", %r1, 1;\n";
  for (FatbinCompression C : {FatbinCompression::Zstd, FatbinCompression::Lz4}) {
    for (const std::string &Text : {Big, std::string("cut\0here", 8)}) {
      FatbinImage Held = ptxImage(90);
      Held.Payload = Text;
      FatbinImage Streamed = ptxImage(90);
      Streamed.PayloadWriter = [&Text](raw_ostream &OS) { OS << Text; };
      std::string Expected = write({Held}, C);
      FatbinWriteOptions O;
      O.Compression = C;
      for (FatbinImage *I : {&Held, &Streamed}) {
        ASSERT_FALSE(errorToBool(packFatbinImage(*I, O)));
        ASSERT_TRUE(I->Packed.has_value());
        EXPECT_TRUE(I->Payload.empty());
        EXPECT_FALSE(I->PayloadWriter);
        EXPECT_EQ(write({*I}, C), Expected);
      }
      std::string Out;
      raw_string_ostream OS(Out);
      FatbinWriteOptions Other;
      Other.Compression = C == FatbinCompression::Zstd ? FatbinCompression::Lz4 : FatbinCompression::Zstd;
      EXPECT_TRUE(errorToBool(writeFatbin({Held}, Other, OS)));
    }
  }
  FatbinImage Plain = ptxImage(90);
  Plain.Payload = "text";
  ASSERT_FALSE(errorToBool(packFatbinImage(Plain, FatbinWriteOptions())));
  EXPECT_FALSE(Plain.Packed.has_value());
  EXPECT_EQ(Plain.Payload, "text");
}
