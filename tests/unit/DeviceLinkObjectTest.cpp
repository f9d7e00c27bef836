// Unit tests of the device-link object writer (writeDeviceLinkObject) and of what ptxlink reads back
// from host objects: LLVM's ELF reader accepts the object; it has nvcc -dlink's sections, the right
// globals, relocations of the expected kinds against the expected symbols, the version-2 wrapper and the
// `def <id>` strings; readHostEmbedding finds the fatbinary, every module id and every registration
// function; readHostDeviceCode reports a relocatable fatbinary without a module id.
#include "ptxlink/Fatbin.h"
#include "ptxlink/HostEmbed.h"

#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace ptxlink;
using namespace llvm;

namespace {

std::string linkObject(ArrayRef<std::string> Ids, StringRef Fatbin) {
  std::string Out;
  raw_string_ostream OS(Out);
  EXPECT_FALSE(errorToBool(writeDeviceLinkObject(Fatbin, Ids, OS)));
  return Out;
}

std::string smallFatbin() {
  FatbinImage Img = cantFail(makePtxImage(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k() { ret; }\n"));
  std::string Out;
  raw_string_ostream OS(Out);
  cantFail(writeFatbin({Img}, FatbinWriteOptions(), OS));
  return Out;
}

TEST(DeviceLinkObject, ReadsBackWithLlvmAndHasNvccsLayout) {
  std::string Fatbin = smallFatbin();
  std::vector<std::string> Ids = {"_aaaa_6_main_cu_x", "_bbbb_5_lib_cu_y", "_cccc_3_z_cu_w"};
  std::string Bytes = linkObject(Ids, Fatbin);
  auto Obj = object::ObjectFile::createObjectFile(MemoryBufferRef(Bytes, "dlink.o"));
  ASSERT_TRUE(bool(Obj)) << toString(Obj.takeError());
  auto *Elf = dyn_cast<object::ELF64LEObjectFile>(Obj->get());
  ASSERT_NE(Elf, nullptr);
  EXPECT_EQ(Elf->getArch(), Triple::x86_64);
  EXPECT_TRUE(Elf->isRelocatableObject());

  std::map<std::string, std::string> Sections;
  for (const object::SectionRef &S : Elf->sections())
    Sections[cantFail(S.getName()).str()] = cantFail(S.getContents()).str();
  for (const char *Name : {".text", ".bss", "__nv_module_id", ".nv_fatbin", ".nvFatBinSegment", ".eh_frame", ".note.GNU-stack"})
    EXPECT_TRUE(Sections.count(Name)) << Name;
  EXPECT_EQ(Sections["__nv_module_id"], std::string("def _aaaa_6_main_cu_x\0def _bbbb_5_lib_cu_y\0def _cccc_3_z_cu_w\0", 62));
  EXPECT_EQ(StringRef(Sections[".nv_fatbin"]).take_front(Fatbin.size()), Fatbin);
  EXPECT_EQ(Sections[".nv_fatbin"].size() % 8, 0u);
  const std::string &Segment = Sections[".nvFatBinSegment"];
  ASSERT_EQ(Segment.size(), 24u);
  EXPECT_EQ(support::endian::read32le(Segment.data()), FatbinWrapperMagic);
  EXPECT_EQ(support::endian::read32le(Segment.data() + 4), 2u);

  std::set<std::string> Defined, Undefined;
  for (const object::SymbolRef &S : Elf->symbols()) {
    uint32_t Flags = cantFail(S.getFlags());
    if (!(Flags & object::SymbolRef::SF_Global))
      continue;
    (Flags & object::SymbolRef::SF_Undefined ? Undefined : Defined).insert(cantFail(S.getName()).str());
  }
  EXPECT_EQ(Defined, (std::set<std::string>{"__cudaRegisterLinkedBinary_aaaa_6_main_cu_x",
                                            "__cudaRegisterLinkedBinary_bbbb_5_lib_cu_y",
                                            "__cudaRegisterLinkedBinary_cccc_3_z_cu_w"}));
  EXPECT_EQ(Undefined, (std::set<std::string>{"__fatbinwrap_aaaa_6_main_cu_x", "__fatbinwrap_bbbb_5_lib_cu_y",
                                              "__fatbinwrap_cccc_3_z_cu_w", "__cudaRegisterFatBinary",
                                              "__cudaRegisterFatBinaryEnd", "__cudaUnregisterFatBinary", "atexit"}));

  // Relocations of .text: PC-relative data, PLT calls to the runtime, one GOT load per module's wrapper.
  std::map<std::string, unsigned> CallsTo, GotLoadsOf;
  unsigned PcRel = 0;
  for (const object::SectionRef &S : Elf->sections()) {
    object::section_iterator Relocated = cantFail(S.getRelocatedSection());
    if (Relocated == Elf->section_end() || cantFail(Relocated->getName()) != ".text")
      continue;
    for (const object::RelocationRef &R : S.relocations()) {
      std::string Target = cantFail(R.getSymbol()->getName()).str();
      switch (R.getType()) {
      case ELF::R_X86_64_PLT32: ++CallsTo[Target]; break;
      case ELF::R_X86_64_REX_GOTPCRELX: ++GotLoadsOf[Target]; break;
      case ELF::R_X86_64_PC32: ++PcRel; break;
      default: ADD_FAILURE() << "unexpected relocation type " << R.getType();
      }
    }
  }
  EXPECT_EQ(CallsTo, (std::map<std::string, unsigned>{{"__cudaRegisterFatBinary", 1}, {"__cudaRegisterFatBinaryEnd", 1},
                                                      {"__cudaUnregisterFatBinary", 1}, {"atexit", 1}}));
  EXPECT_EQ(GotLoadsOf.size(), 3u);
  for (auto &[Name, Count] : GotLoadsOf) {
    EXPECT_TRUE(StringRef(Name).starts_with("__fatbinwrap_")) << Name;
    EXPECT_EQ(Count, 1u);
  }
  EXPECT_EQ(PcRel, 10u + 3u * 3u); // 9 in the shared routine, 1 in the atexit handler, 3 per module
}

TEST(DeviceLinkObject, HostEmbeddingReaderFindsModulesAndFatbin) {
  std::string Fatbin = smallFatbin();
  std::string Bytes = linkObject({"_one", "_two"}, Fatbin);
  std::vector<std::string> Warnings;
  HostEmbedInfo Info = readHostEmbedding(Bytes, [&](uint64_t, const Twine &M) { Warnings.push_back(M.str()); });
  EXPECT_TRUE(Warnings.empty());
  EXPECT_EQ(Info.Machine, 62);
  EXPECT_EQ(Info.ModuleIds, (std::vector<std::string>{"_one", "_two"}));
  EXPECT_EQ(Info.LinkedBinaryFunctions,
            (std::vector<std::string>{"__cudaRegisterLinkedBinary_one", "__cudaRegisterLinkedBinary_two"}));
  ASSERT_EQ(Info.Fatbins.size(), 1u);
  EXPECT_EQ(Info.Fatbins[0].SectionName, ".nv_fatbin");
  ASSERT_EQ(Info.Wrappers.size(), 1u);
  EXPECT_EQ(Info.Wrappers[0].Version, 2u);
  EXPECT_EQ(Info.Wrappers[0].DataTarget, ".nv_fatbin+0");
  // The device-link object is not itself a device-link input: it has no relocatable fatbinary.
  Expected<HostDeviceCode> Code = readHostDeviceCode(Bytes, "dlink.o");
  ASSERT_TRUE(bool(Code));
  EXPECT_FALSE(Code->HasRelocatableFatbin);
}

TEST(DeviceLinkObject, DeterministicAndRegistersNothingWithoutModules) {
  std::string Fatbin = smallFatbin();
  EXPECT_EQ(linkObject({"_a", "_b"}, Fatbin), linkObject({"_a", "_b"}, Fatbin));
  // No module: an object that registers nothing (nvcc -dlink of plain objects writes one), which LLVM
  // reads as an ELF object that defines no __cudaRegisterLinkedBinary_<id>.
  std::string Out;
  raw_string_ostream OS(Out);
  ASSERT_FALSE(errorToBool(writeDeviceLinkObject(Fatbin, {}, OS)));
  HostEmbedInfo Info = readHostEmbedding(Out, [](uint64_t, const Twine &Message) { ADD_FAILURE() << Message.str(); });
  EXPECT_TRUE(Info.LinkedBinaryFunctions.empty());
  EXPECT_TRUE(Info.ModuleIds.empty());
}

} // namespace
