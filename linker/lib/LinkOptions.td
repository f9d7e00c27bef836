// ptxlink's options (llvm-tblgen -gen-opt-parser-defs turns this into LinkOptions.inc, the table
// LinkOptions.cpp parses with, prints --help from and prints the man page from).
//
// nvlink's and binutils' spellings are both accepted: every long option may be written with one or two
// dashes (-arch, --arch), its value after `=` or as the next argument; -o, -L, -l and -j also glue their
// value (-ofile, -Ldir, -lname, -j4). The `=` spellings are hidden aliases (the help says so once).
include "llvm/Option/OptParser.td"

// A long option that takes a value: -name VALUE, --name VALUE, -name=VALUE, --name=VALUE.
multiclass Value<string name, string meta, string help> {
  def NAME : Separate<["--", "-"], name>, MetaVarName<meta>, HelpText<help>;
  def NAME # _eq : Joined<["--", "-"], name # "=">, Alias<!cast<Separate>(NAME)>, MetaVarName<meta>,
    Flags<[HelpHidden]>;
}
// Another spelling of a long option with a value.
multiclass ValueAlias<string name, Option target> {
  def NAME : Separate<["--", "-"], name>, Alias<target>, HelpText<"Alias for --" # target.Name>;
  def NAME # _eq : Joined<["--", "-"], name # "=">, Alias<target>, Flags<[HelpHidden]>;
}
// A long flag: -name or --name.
class LongFlag<string name> : Flag<["--", "-"], name>;
// A one-letter option that glues its value (-ofile) or takes the next argument (-o file); --o file and
// -o=file work too.
multiclass Short<string name, string meta, string help> {
  def NAME : JoinedOrSeparate<["-"], name>, MetaVarName<meta>, HelpText<help>;
  def NAME # _dd : Separate<["--"], name>, Alias<!cast<JoinedOrSeparate>(NAME)>, Flags<[HelpHidden]>;
  def NAME # _eq : Joined<["--", "-"], name # "=">, Alias<!cast<JoinedOrSeparate>(NAME)>, Flags<[HelpHidden]>;
}

def grp_inputs : OptionGroup<"inputs">, HelpText<"INPUTS (ptxlink objects, .ptx files, static libraries, "
  "nvcc -rdc host objects and nvcc -lib archives; @<file> reads more arguments, GNU quoting)">;
defm optf : Value<"optf", "<file,...>",
  "nvlink's options file: its arguments are read in place (later ones still override)">, Group<grp_inputs>;
defm options_file : ValueAlias<"options-file", optf>;
defm L : Short<"L", "<dir>", "Add a library search directory">, Group<grp_inputs>;
defm library_path : ValueAlias<"library-path", L>;
defm l : Short<"l", "<name>", "Link lib<name>.a (searched in -L dirs; -l:file.a for an exact name); "
  "-lcudadevrt links the CUDA device runtime (needs --sass; automatic when a module calls it)">,
  Group<grp_inputs>;
defm library : ValueAlias<"library", l>;
def whole_archive : LongFlag<"whole-archive">, Group<grp_inputs>,
  HelpText<"Load every member of the following libraries">;
def no_whole_archive : LongFlag<"no-whole-archive">, Group<grp_inputs>,
  HelpText<"Back to lazy extraction (default)">;

defm max_decompressed : Value<"max-decompressed", "<size>",
  "Most PTX the link may decompress from compressed inputs (nvcc host objects built with "
  "-Xfatbin=-compress-all), all inputs together (default: 100M plus twice the inputs' size)">,
  Group<grp_inputs>;

def grp_output : OptionGroup<"output">, HelpText<"OUTPUT">;
defm arch : Value<"arch", "<sm_XX,...>",
  "Architectures to link for (sm_XX, sm_XXa, sm_XXXf; compute_XX accepted)">, Group<grp_output>;
defm gpu_architecture : ValueAlias<"gpu-architecture", arch>;
defm gpu_name : ValueAlias<"gpu-name", arch>;
defm o : Short<"o", "<file>",
  "Output file ('-' = standard output); default a.fatbin, a.ptx, a.o, a_dlink.o or a.fatbin.c">,
  Group<grp_output>;
defm output : ValueAlias<"output", o>;
defm output_file : ValueAlias<"output-file", o>;
defm emit : Value<"emit", "<kind>",
  "What to write: fatbin (default), ptx (the linked module; one arch only), host-object (the device-link "
  "object of a CUDA program, what nvcc -dlink writes: --emit host-object), c (C source that embeds the "
  "fatbinary) or obj (as -r)">, Group<grp_output>;
def emit_ptx : LongFlag<"emit-ptx">, Group<grp_output>, HelpText<"--emit ptx">;
def dlink : LongFlag<"dlink">, Group<grp_output>, HelpText<"--emit host-object">;
def : LongFlag<"device-link">, Alias<dlink>, HelpText<"Alias for --dlink">;
def relocatable : LongFlag<"relocatable">, Group<grp_output>,
  HelpText<"Relocatable link: one object (one variant per arch) that links again later">;
def : LongFlag<"r">, Alias<relocatable>, HelpText<"Alias for --relocatable">;
def : LongFlag<"relocatable-link">, Alias<relocatable>, HelpText<"Alias for --relocatable">;
def sass : LongFlag<"sass">, Group<grp_output>,
  HelpText<"Also put a cubin per arch into the fatbinary: each input's code compiled by ptxas -c (in "
  "parallel, cached), joined by nvlink">;
def whole_program : LongFlag<"whole-program">, Group<grp_output>,
  HelpText<"With --sass: one ptxas run over the whole linked module instead">;
// SASS reuse and sharing (issue 27): one block.
def recompile_sass : LongFlag<"recompile-sass">, Group<grp_output>,
  HelpText<"With --sass: compile every module from its PTX, even one whose input carries SASS for the arch "
  "that the link could use as it is">;
defm write_sass_units : Value<"write-sass-units", "<dir>",
  "With --sass: write the units ptxas would compile into <dir> (<key>.ptx, units.txt, build.ninja) and "
  "stop, for a build system to compile them">, Group<grp_output>;
defm use_sass_units : Value<"use-sass-units", "<dir>",
  "With --sass: take a unit's cubin from <dir>/<key>.cubin where it is there (--write-sass-units)">,
  Group<grp_output>;
defm remote_cache : Value<"remote-cache", "<url>",
  "With --sass: also read and write the compile cache's entries at this HTTP server (Bazel's remote cache "
  "protocol; default $PTXLINK_REMOTE_CACHE; a header line for credentials from $PTXLINK_REMOTE_CACHE_HEADER)">,
  Group<grp_output>;
defm cache_dir : Value<"cache-dir", "<dir>",
  "Compile cache (default $XDG_CACHE_HOME/ptxlink, else ~/.cache/ptxlink)">, Group<grp_output>;
def no_cache : LongFlag<"no-cache">, Group<grp_output>, HelpText<"Neither read nor write the compile cache">;
defm cache_limit : Value<"cache-limit", "<size>",
  "Size limit of the cache (e.g. 500M, 2G; default 2G): least recently used go">, Group<grp_output>;
defm sass_batch_below : Value<"sass-batch-below", "<size>",
  "Inputs with less code than this (default 16K) share a ptxas run with their neighbours; 0: one ptxas "
  "run per input">, Group<grp_output>;
def save_temps : LongFlag<"save-temps">, Group<grp_output>,
  HelpText<"Keep the modules given to ptxas and nvlink (the folder is printed)">;
defm compress : Value<"compress", "<zstd|lz4|none>[:level]",
  "Compress the fatbinary's images (default none; zstd:3 with --sass)">, Group<grp_output>;
def check_abi : LongFlag<"check-abi">, Group<grp_output>, HelpText<"Run every link check, write no output">;
def verify : LongFlag<"verify">, Group<grp_output>,
  HelpText<"Run ptxas (-O0) over each linked module and report its errors at the inputs' file:line:col">;
defm Xptxas : Value<"Xptxas", "<opt,...>",
  "Pass options to ptxas where ptxlink runs it (--sass, --verify)">, Group<grp_output>;
def m64 : LongFlag<"m64">, Group<grp_output>,
  HelpText<"64-bit device code (the only kind; accepted for nvlink's command lines)">;
defm machine : Value<"machine", "<64>", "nvlink's --machine: 64 only (as -m64)">, Group<grp_output>;
defm m : ValueAlias<"m", machine>;
def m32 : LongFlag<"m32">, Flags<[HelpHidden]>, HelpText<"Refused: 32-bit device code does not exist any more">;
def debug : LongFlag<"debug">, Group<grp_output>,
  HelpText<"Accepted for nvlink's command lines: debug information follows the inputs (kept when they "
  "have it; ptxas gets -g for inputs with .target debug)">;
def : LongFlag<"g">, Alias<debug>, HelpText<"Alias for --debug">;

// Link-time optimisation (docs/linker.md, "LTO"): one block, kept together.
def grp_lto : OptionGroup<"lto">, HelpText<"LINK-TIME OPTIMISATION">;
def dlto : LongFlag<"dlto">, Group<grp_lto>,
  HelpText<"Optimise the program at link time (nvcc -dlto objects' LTO-IR) with libnvJitLink: ptxlink's "
  "checks run on the PTX first, then each -arch's SASS comes from nvJitLink (fatbin, host-object, c outputs)">;
defm nvjitlink : Value<"nvjitlink", "<file>",
  "The libnvJitLink to load for -dlto (default: beside ptxas on PATH, $CUDA_HOME, $CUDA_PATH, "
  "/usr/local/cuda/lib64)">, Group<grp_lto>;
def lto_ptx : LongFlag<"lto-ptx">, Group<grp_lto>,
  HelpText<"With -dlto: also put the optimised program as PTX (compute_XX) in the output, for newer GPUs">;

def grp_dead : OptionGroup<"dead">, HelpText<"DEAD CODE">;
def no_gc : LongFlag<"no-gc">, Group<grp_dead>, HelpText<"Keep every definition">;
def print_gc : LongFlag<"print-gc">, Group<grp_dead>, HelpText<"List what was removed">;
defm kernels_used : Value<"kernels-used", "<a,b>",
  "Kernels to keep (substring match); other kernels are dead">, Group<grp_dead>;
defm variables_used : Value<"variables-used", "<a,b>", "Visible variables to keep (substring match)">,
  Group<grp_dead>;

def grp_reports : OptionGroup<"reports">, HelpText<"REPORTS">;
def dump_callgraph : LongFlag<"dump-callgraph">, Group<grp_reports>,
  HelpText<"Print the call graph of each linked module">;
defm callgraph_dot : Value<"callgraph-dot", "<file>",
  "Write the call graph as Graphviz: kernels, device functions, function-pointer tables and indirect "
  "calls, removed code greyed, one cluster per input module">, Group<grp_reports>;
defm trace_symbol : Value<"trace-symbol", "<name>",
  "Print every definition and reference of <name> and which one won">, Group<grp_reports>;
defm map : Value<"map", "<file>",
  "Write a link map (what each kept symbol came from, sizes, what was dropped)">, Group<grp_reports>;
defm why_extract : Value<"why-extract", "<file>", "Write why each archive member was extracted">,
  Group<grp_reports>;
defm time : Value<"time", "<file>",
  "Append the time each pass took to <file> as CSV (nvlink's --time; '-' = standard output)">,
  Group<grp_reports>;

def grp_misc : OptionGroup<"misc">, HelpText<"DIAGNOSTICS AND MISC">;
def Werror : LongFlag<"Werror">, Group<grp_misc>, HelpText<"Treat warnings as errors">;
def : LongFlag<"warning-as-error">, Alias<Werror>, HelpText<"Alias for -Werror">;
def w : LongFlag<"w">, Group<grp_misc>, HelpText<"Suppress warnings">;
def : LongFlag<"disable-warnings">, Alias<w>, HelpText<"Alias for -w">;
def json : LongFlag<"json">, Group<grp_misc>, HelpText<"Diagnostics as JSON lines">;
defm error_limit : Value<"error-limit", "<n>", "Stop after <n> errors (0 = no limit; default 20)">,
  Group<grp_misc>;
defm threads : Value<"threads", "<n>",
  "Worker threads and parallel ptxas runs (default: the machine's cores; output is identical for any n)">,
  Group<grp_misc>;
defm j : Short<"j", "<n>", "Alias for --threads">;
def no_progress : LongFlag<"no-progress">, Group<grp_misc>,
  HelpText<"No progress line for long --sass work (shown only on a terminal)">;
def verbose : LongFlag<"verbose">, Group<grp_misc>, HelpText<"Verbose">;
def : LongFlag<"v">, Alias<verbose>, HelpText<"Alias for --verbose">;
def version : LongFlag<"version">, Group<grp_misc>, HelpText<"Print the version and exit">;
def : LongFlag<"V">, Alias<version>, HelpText<"Alias for --version">;
def help : LongFlag<"help">, Group<grp_misc>, HelpText<"Print this help and exit">;
def : LongFlag<"h">, Alias<help>, HelpText<"Alias for --help">;
def help_man : LongFlag<"help-man">, Flags<[HelpHidden]>,
  HelpText<"Print the man page (roff) generated from this table">;
