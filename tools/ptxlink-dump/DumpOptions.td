// ptxlink-dump's options (llvm-tblgen -gen-opt-parser-defs turns this into DumpOptions.inc, the table
// DumpTool.cpp parses with, prints --help from and prints the man page from). Arguments that are not
// options are the inputs.
include "llvm/Option/OptParser.td"

// An option with a value, written `--name VALUE` or `--name=VALUE`.
multiclass Value<list<string> prefixes, string name, string meta, string help> {
  def NAME : Separate<prefixes, name>, MetaVarName<meta>, HelpText<help>;
  def NAME # _eq : Joined<prefixes, name # "=">, Alias<!cast<Separate>(NAME)>, MetaVarName<meta>,
    Flags<[HelpHidden]>;
}

def grp_views : OptionGroup<"views">, HelpText<"VIEWS (several may be combined; default: --headers)">;
def headers : Flag<["--"], "headers">, Group<grp_views>,
  HelpText<"File kind, format version, target, PTX version, address size (the default view)">;
def sections : Flag<["--"], "sections">, Group<grp_views>, HelpText<"Sections with sizes and flags">;
def symbols : Flag<["--"], "symbols">, Group<grp_views>, HelpText<"Symbols with PTX linkage (visible, weak, common, extern, local, alias)">;
def relocs : Flag<["--"], "relocs">, Group<grp_views>, HelpText<"Relocations (calls, address-of, call tables, debug references)">;
def abi : Flag<["--"], "abi">, Group<grp_views>, HelpText<"Parameter lists, return values, kernel tuning and cluster directives">;
def ptx : Flag<["--"], "ptx">, Group<grp_views>, HelpText<"The PTX text of every section / the PTX images of a fatbinary">;
def list_images : Flag<["--"], "list">, Group<grp_views>, HelpText<"The members of an archive / the images of a fatbinary">;
def callgraph : Flag<["--"], "callgraph">, Group<grp_views>, HelpText<"Calls between functions">;
def labels : Flag<["--"], "labels">, Group<grp_views>, HelpText<"The labels each function defines (other than debug labels, which are symbols)">;
def debug : Flag<["--"], "debug">, Group<grp_views>, HelpText<"DWARF sections and the .file table">;
def nv_info : Flag<["--"], "nv-info">, Group<grp_views>, HelpText<"A cubin's .nv.info attributes">;
def all : Flag<["--"], "all">, Group<grp_views>, HelpText<"Every view but --ptx">;

def grp_output : OptionGroup<"output">, HelpText<"OUTPUT">;
def json : Flag<["--"], "json">, Group<grp_output>,
  HelpText<"Print one JSON document (schema ptxlink-dump) instead of text">;
defm format : Value<["--"], "format", "<text|json|dot>",
  "Output format; dot draws the call graph as Graphviz (with --callgraph)">, Group<grp_output>;
defm extract : Value<["--"], "extract", "<dir>",
  "Write the images of a fatbinary / the members of an archive to <dir>">, Group<grp_output>;
defm select : Value<["--"], "select", "<sm_XX>",
  "Only the variant / image for this architecture (sm_90, sm_90a, sm_100f)">, Group<grp_output>;
defm max_decompressed : Value<["--"], "max-decompressed", "<size>",
  "Most bytes this run may decompress from compressed fatbinary images, all inputs together "
  "(500M, 2G; default: 100M plus twice the inputs' size)">, Group<grp_output>;

def grp_cuobjdump : OptionGroup<"cuobjdump">, HelpText<"CUOBJDUMP'S SPELLINGS">;
def list_elf : Flag<["--"], "list-elf">, Group<grp_cuobjdump>, HelpText<"--list of the cubin images only">;
def : Flag<["-"], "lelf">, Alias<list_elf>, HelpText<"Alias for --list-elf">;
def list_ptx : Flag<["--"], "list-ptx">, Group<grp_cuobjdump>, HelpText<"--list of the PTX images only">;
def : Flag<["-"], "lptx">, Alias<list_ptx>, HelpText<"Alias for --list-ptx">;
defm extract_elf : Value<["--"], "extract-elf", "<name>",
  "Write the cubin images whose file name contains <name> (or all) to the current directory">,
  Group<grp_cuobjdump>;
def : Separate<["-"], "xelf">, Alias<extract_elf>, MetaVarName<"<name>">, HelpText<"Alias for --extract-elf">;
def : Joined<["-"], "xelf=">, Alias<extract_elf>, MetaVarName<"<name>">, Flags<[HelpHidden]>;
defm extract_ptx : Value<["--"], "extract-ptx", "<name>",
  "Write the PTX images whose file name contains <name> (or all) to the current directory">,
  Group<grp_cuobjdump>;
def : Separate<["-"], "xptx">, Alias<extract_ptx>, MetaVarName<"<name>">, HelpText<"Alias for --extract-ptx">;
def : Joined<["-"], "xptx=">, Alias<extract_ptx>, MetaVarName<"<name>">, Flags<[HelpHidden]>;
def dump_ptx : Flag<["--"], "dump-ptx">, Alias<ptx>, HelpText<"Alias for --ptx">;
def : Flag<["-"], "ptx">, Alias<ptx>, HelpText<"Alias for --ptx">;
def dump_elf : Flag<["--"], "dump-elf">, Group<grp_cuobjdump>,
  HelpText<"An ELF's headers, sections, symbols and relocations (--headers --sections --symbols --relocs)">;
def : Flag<["-"], "elf">, Alias<dump_elf>, HelpText<"Alias for --dump-elf">;

def grp_create : OptionGroup<"create">, HelpText<"WRITING A FATBINARY">;
defm create_fatbin : Value<["--"], "create-fatbin", "<out>",
  "Wrap the input cubins and PTX files, in order, into the fatbinary <out>">, Group<grp_create>;
defm compress : Value<["--"], "compress", "<none|lz4|zstd>[:level]",
  "Compression of the PTX images in --create-fatbin's output: zstd levels 1-22 (default 19), "
  "lz4 levels 1-12 (LZ4 HC; without a level the fast compressor)">, Group<grp_create>;
def compress_all : Flag<["--"], "compress-all">, Group<grp_create>,
  HelpText<"Compress the cubin images too, as fatbinary --compress-all (default scheme zstd)">;
defm embed_source : Value<["--"], "embed-source", "<out.c>",
  "Also write the fatbinary as C source that embeds it, as nvcc's .fatbin.c">, Group<grp_create>;
def relocatable : Flag<["--"], "relocatable">, Group<grp_create>,
  HelpText<"--embed-source for relocatable device code (-rdc)">;

def grp_compare : OptionGroup<"compare">, HelpText<"COMPARING TWO VERSIONS">;
def abi_diff : Option<["--"], "abi-diff", KIND_REMAINING_ARGS>, MetaVarName<"<old> <new> [--json]">,
  Group<grp_compare>,
  HelpText<"Compare the interfaces of two objects or libraries; every argument after it is its own">;

def help : Flag<["--"], "help">, HelpText<"Print this help and exit">;
def : Flag<["-"], "h">, Alias<help>, HelpText<"Alias for --help">;
def version : Flag<["--"], "version">, HelpText<"Print the version and exit">;
def help_man : Flag<["--"], "help-man">, Flags<[HelpHidden]>,
  HelpText<"Print the man page (roff) generated from this table">;
