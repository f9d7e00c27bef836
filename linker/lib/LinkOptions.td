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
// A one-letter flag: -v (--v works too); --help shows it with one dash.
class LetterFlag<string name> : Flag<["-", "--"], name>;
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
  "-lcudadevrt: the CUDA device runtime, linked (as SASS) when a module calls it; host libraries (-lrt, "
  "-lcudart_static) are left to the host link">,
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

defm release_input_text_after : Value<"release-input-text-after", "<size>",
  "Give the objects' PTX text back to the system between reading and printing it once the objects read "
  "reach this size, which keeps a large link's memory near its own tables (default: 64M; 0: always)">,
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
def : LetterFlag<"r">, Alias<relocatable>, HelpText<"Alias for --relocatable">;
def : LongFlag<"relocatable-link">, Alias<relocatable>, HelpText<"Alias for --relocatable">;
def sass : LongFlag<"sass">, Group<grp_output>,
  HelpText<"Also put a cubin per arch into the fatbinary: each input's code compiled by ptxas -c (in "
  "parallel, cached), joined by nvlink">;
def whole_program : LongFlag<"whole-program">, Group<grp_output>,
  HelpText<"With --sass: one ptxas run over the whole linked module instead">;
// SASS reuse and sharing: one block.
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
  "With --sass: also read and write the compile cache's entries at this HTTP or HTTPS server (Bazel's remote cache "
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
def m : Separate<["-", "--"], "m">, Alias<machine>, HelpText<"Alias for --machine">;
def m_eq : Joined<["-", "--"], "m=">, Alias<machine>, Flags<[HelpHidden]>;
def m32 : LongFlag<"m32">, Flags<[HelpHidden]>, HelpText<"Refused: 32-bit device code does not exist any more">;
def debug : LongFlag<"debug">, Group<grp_output>,
  HelpText<"Accepted for nvlink's command lines: debug information follows the inputs (kept when they "
  "have it; ptxas gets -g for inputs with .target debug)">;
def : LetterFlag<"g">, Alias<debug>, HelpText<"Alias for --debug">;

// nvcc -dlink's command line: a Makefile's `$(NVCC) -dlink $(NVCC_FLAGS) $(OBJ) -o dlink.o` works
// with the tool's name swapped. Options with a meaning for the device link get it; nvcc's compile-only
// options (the same NVCC_FLAGS serve the compile lines) are accepted and ignored, each named under -v.
def grp_nvcc : OptionGroup<"nvcc">, HelpText<"NVCC -DLINK COMPATIBILITY (what nvcc -dlink accepts, with its meaning)">;
defm gencode : Value<"gencode", "<arch=compute_XX,code=[sm_XX,compute_XX]>",
  "nvcc's architecture specification: every sm_XX and compute_XX in code= links for sm_XX; an sm_XX "
  "code (SASS) also compiles SASS, as with --sass">, Group<grp_nvcc>;
defm generate_code : ValueAlias<"generate-code", gencode>;
defm nvcc_code : Value<"code", "<sm_XX|compute_XX,...>",
  "nvcc's -code: the images to make for -arch's virtual architecture (sm_XX: SASS too)">, Group<grp_nvcc>;
defm gpu_code : ValueAlias<"gpu-code", nvcc_code>;
def device_debug : LetterFlag<"G">, Group<grp_nvcc>,
  HelpText<"nvcc's -G: debug information follows the inputs (their -G DWARF is merged; ptxas gets -g)">;
def : LongFlag<"device-debug">, Alias<device_debug>, HelpText<"Alias for -G">;
def keep : LongFlag<"keep">, Group<grp_nvcc>, HelpText<"nvcc's -keep: as --save-temps">;
defm keep_dir : Value<"keep-dir", "<dir>", "nvcc's -keep-dir: where --save-temps keeps its files">,
  Group<grp_nvcc>;
defm Xnvlink : Value<"Xnvlink", "<opt,...>", "Pass options to nvlink where ptxlink runs it (--sass)">,
  Group<grp_nvcc>;
defm nvlink_options : ValueAlias<"nvlink-options", Xnvlink>;
defm ptxas_options : ValueAlias<"ptxas-options", Xptxas>;
defm maxrregcount : Value<"maxrregcount", "<n>", "nvcc's -maxrregcount: passed to ptxas (--sass)">,
  Group<grp_nvcc>;
def resource_usage : LongFlag<"resource-usage">, Group<grp_nvcc>,
  HelpText<"nvcc's --resource-usage: ptxas -v, its per-kernel registers, memory and stack shown (--sass)">;
def : LongFlag<"res-usage">, Alias<resource_usage>, HelpText<"Alias for --resource-usage">;
defm t : Short<"t", "<n>", "nvcc's -t (--threads): as --threads">, Group<grp_nvcc>;
def dryrun : LongFlag<"dryrun">, Group<grp_nvcc>,
  HelpText<"Run the link's checks and show the ptxas and nvlink command lines it would run; write nothing">;

// nvcc's compile-only options: accepted, nothing for a device link to do (-v names each).
def grp_nvcc_ignored : OptionGroup<"nvcc-ignored">, Group<grp_nvcc>,
  HelpText<"nvcc's compile-only options (-O3, -std=, -Xcompiler, -ccbin, -I, -D, -lineinfo, -rdc=, -use_fast_math...): accepted and ignored">;
multiclass NvccFlag<string name> {
  def NAME : LongFlag<name>, Group<grp_nvcc_ignored>, Flags<[HelpHidden]>;
}
multiclass NvccValue<string name> {
  def NAME : Separate<["--", "-"], name>, Group<grp_nvcc_ignored>, Flags<[HelpHidden]>;
  def NAME # _eq : Joined<["--", "-"], name # "=">, Group<grp_nvcc_ignored>, Flags<[HelpHidden]>;
}
def nvcc_O : JoinedOrSeparate<["-"], "O">, Group<grp_nvcc_ignored>, Flags<[HelpHidden]>;
def nvcc_I : JoinedOrSeparate<["-"], "I">, Group<grp_nvcc_ignored>, Flags<[HelpHidden]>;
def nvcc_D : JoinedOrSeparate<["-"], "D">, Group<grp_nvcc_ignored>, Flags<[HelpHidden]>;
def nvcc_U : JoinedOrSeparate<["-"], "U">, Group<grp_nvcc_ignored>, Flags<[HelpHidden]>;
def nvcc_Wno : Joined<["--", "-"], "Wno-">, Group<grp_nvcc_ignored>, Flags<[HelpHidden]>;
def nvcc_x : Separate<["-"], "x">, Group<grp_nvcc_ignored>, Flags<[HelpHidden]>;
def nvcc_Werror_eq : Joined<["--", "-"], "Werror=">, Group<grp_nvcc>, Flags<[HelpHidden]>,
  HelpText<"nvcc's -Werror=<kind,...>: all-warnings makes warnings errors (nvlink's too, as nvcc's); the "
  "other kinds are the compiler's">;
defm lineinfo : NvccFlag<"lineinfo">;
defm generate_line_info : NvccFlag<"generate-line-info">;
defm nvcc_shared : NvccFlag<"shared">;
defm use_fast_math : NvccFlag<"use_fast_math">;
defm expt_relaxed_constexpr : NvccFlag<"expt-relaxed-constexpr">;
defm expt_extended_lambda : NvccFlag<"expt-extended-lambda">;
defm extended_lambda : NvccFlag<"extended-lambda">;
defm forward_unknown : NvccFlag<"forward-unknown-to-host-compiler">;
defm forward_unknown_opts : NvccFlag<"forward-unknown-opts">;
defm allow_unsupported_compiler : NvccFlag<"allow-unsupported-compiler">;
defm src_in_ptx : NvccFlag<"src-in-ptx">;
defm keep_device_functions : NvccFlag<"keep-device-functions">;
defm display_error_number : NvccFlag<"display-error-number">;
defm no_display_error_number : NvccFlag<"no-display-error-number">;
defm nvcc_restrict : NvccFlag<"restrict">;
defm nvcc_dc : NvccFlag<"dc">;
defm pg : NvccFlag<"pg">;
defm MD : NvccFlag<"MD">;
defm MMD : NvccFlag<"MMD">;
defm nvcc_std : NvccValue<"std">;
defm Xcompiler : NvccValue<"Xcompiler">;
defm compiler_options : NvccValue<"compiler-options">;
defm Xcudafe : NvccValue<"Xcudafe">;
defm Xfatbin : NvccValue<"Xfatbin">;
defm cudafe_options : NvccValue<"cudafe-options">;
defm fatbin_options : NvccValue<"fatbin-options">;
defm Xlinker : NvccValue<"Xlinker">;
defm linker_options : NvccValue<"linker-options">;
defm ccbin : NvccValue<"ccbin">;
defm compiler_bindir : NvccValue<"compiler-bindir">;
defm rdc : NvccValue<"rdc">;
defm relocatable_device_code : NvccValue<"relocatable-device-code">;
defm ftz : NvccValue<"ftz">;
defm prec_div : NvccValue<"prec-div">;
defm prec_sqrt : NvccValue<"prec-sqrt">;
defm fmad : NvccValue<"fmad">;
defm cudart : NvccValue<"cudart">;
defm cudadevrt : NvccValue<"cudadevrt">;
defm default_stream : NvccValue<"default-stream">;
defm diag_suppress : NvccValue<"diag-suppress">;
defm diag_warn : NvccValue<"diag-warn">;
defm diag_error : NvccValue<"diag-error">;
defm nvcc_optimize : NvccValue<"optimize">;
defm dopt : NvccValue<"dopt">;
defm MF : NvccValue<"MF">;
defm MT : NvccValue<"MT">;
defm isystem : NvccValue<"isystem">;
defm nvcc_include : NvccValue<"include">;
defm split_compile : NvccValue<"split-compile">;
// The rest of nvcc's compile-only options (nvcc 13 --help), long and short spellings: a Makefile's one
// NVCC_FLAGS on the -dlink line too.
defm objdir_as_tempdir : NvccFlag<"objdir-as-tempdir">;
defm objtemp : NvccFlag<"objtemp">;
defm use_local_env : NvccFlag<"use-local-env">;
defm force_cl_env_setup : NvccFlag<"force-cl-env-setup">;
defm nvcc_profile : NvccFlag<"profile">;
defm gen_opt_lto : NvccFlag<"gen-opt-lto">;
defm no_exceptions : NvccFlag<"no-exceptions">;
defm noeh : NvccFlag<"noeh">;
defm no_hd_initializer_list : NvccFlag<"no-host-device-initializer-list">;
defm nohdinitlist : NvccFlag<"nohdinitlist">;
defm no_hd_move_forward : NvccFlag<"no-host-device-move-forward">;
defm nohdmoveforward : NvccFlag<"nohdmoveforward">;
defm forward_unknown_linker : NvccFlag<"forward-unknown-to-host-linker">;
defm fdevice_syntax_only : NvccFlag<"fdevice-syntax-only">;
defm no_align_double : NvccFlag<"no-align-double">;
defm extra_device_vectorization : NvccFlag<"extra-device-vectorization">;
defm source_in_ptx : NvccFlag<"source-in-ptx">;
defm Wreorder : NvccFlag<"Wreorder">;
defm Wdefault_stream_launch : NvccFlag<"Wdefault-stream-launch">;
defm Wmissing_launch_bounds : NvccFlag<"Wmissing-launch-bounds">;
defm Wext_lambda_captures_this : NvccFlag<"Wext-lambda-captures-this">;
defm extensible_whole_program : NvccFlag<"extensible-whole-program">;
defm ewp : NvccFlag<"ewp">;
defm err_no : NvccFlag<"err-no">;
defm no_err_no : NvccFlag<"no-err-no">;
defm augment_host_linker_script : NvccFlag<"augment-host-linker-script">;
defm aug_hls : NvccFlag<"aug-hls">;
defm relocatable_ptx : NvccFlag<"relocatable-ptx">;
defm reloc_ptx : NvccFlag<"reloc-ptx">;
defm jobserver : NvccFlag<"jobserver">;
defm gen_deps_with_compile : NvccFlag<"generate-dependencies-with-compile">;
defm gen_nonsystem_deps_with_compile : NvccFlag<"generate-nonsystem-dependencies-with-compile">;
defm gen_dependency_targets : NvccFlag<"generate-dependency-targets">;
defm MP : NvccFlag<"MP">;
defm pre_include : NvccValue<"pre-include">;
defm define_macro : NvccValue<"define-macro">;
defm undefine_macro : NvccValue<"undefine-macro">;
defm include_path : NvccValue<"include-path">;
defm system_include : NvccValue<"system-include">;
defm output_directory : NvccValue<"output-directory">;
defm odir : NvccValue<"odir">;
defm archiver_binary : NvccValue<"archiver-binary">;
defm arbin : NvccValue<"arbin">;
defm libdevice_directory : NvccValue<"libdevice-directory">;
defm ldir : NvccValue<"ldir">;
defm target_directory : NvccValue<"target-directory">;
defm target_dir : NvccValue<"target-dir">;
defm optimization_info : NvccValue<"optimization-info">;
defm opt_info : NvccValue<"opt-info">;
defm Ofast_compile : NvccValue<"Ofast-compile">;
defm Ofc : NvccValue<"Ofc">;
defm ftemplate_backtrace_limit : NvccValue<"ftemplate-backtrace-limit">;
defm ftemplate_depth : NvccValue<"ftemplate-depth">;
defm archive_options : NvccValue<"archive-options">;
defm Xarchive : NvccValue<"Xarchive">;
defm static_global_template_stub : NvccValue<"static-global-template-stub">;
defm device_entity_hidden : NvccValue<"device-entity-has-hidden-visibility">;
defm split_compile_extended : NvccValue<"split-compile-extended">;
defm fdevice_time_trace : NvccValue<"fdevice-time-trace">;
defm input_drive_prefix : NvccValue<"input-drive-prefix">;
defm idp : NvccValue<"idp">;
defm dependency_drive_prefix : NvccValue<"dependency-drive-prefix">;
defm ddp : NvccValue<"ddp">;
defm drive_prefix : NvccValue<"drive-prefix">;
defm dp : NvccValue<"dp">;
defm dependency_output : NvccValue<"dependency-output">;
defm dependency_target_name : NvccValue<"dependency-target-name">;
defm entries : NvccValue<"entries">;
defm nvcc_e : NvccValue<"e">;
defm host_linker_script : NvccValue<"host-linker-script">;
defm hls : NvccValue<"hls">;
defm brief_diagnostics : NvccValue<"brief-diagnostics">;
defm brief_diag : NvccValue<"brief-diag">;
defm jump_table_density : NvccValue<"jump-table-density">;
defm jtd : NvccValue<"jtd">;
// Code generation options that nvcc -dlink hands to nothing that makes its SASS (fatbinary's --cmdline only,
// for PTX entries its output does not have); the compile step applied them to the objects' SASS.
defm device_stack_protector : NvccValue<"device-stack-protector">;
defm frandom_seed : NvccValue<"frandom-seed">;
defm nvcc_sanitize : NvccValue<"sanitize">;

// nvcc -dlink's output forms and fatbinary's compression.
def nvcc_fatbin : LongFlag<"fatbin">, Group<grp_nvcc>,
  HelpText<"nvcc's -fatbin with -dlink: write the linked program as a fatbinary file (as --emit fatbin), not "
  "a device-link object">;
def nvcc_cubin : LongFlag<"cubin">, Group<grp_nvcc>, Flags<[HelpHidden]>,
  HelpText<"nvcc's -cubin with -dlink: refused (ptxlink writes fatbinaries; -fatbin instead)">;
def no_compress : LongFlag<"no-compress">, Group<grp_nvcc>,
  HelpText<"nvcc's -no-compress: as --compress none">;
defm compress_mode : Value<"compress-mode", "<default|size|speed|balance|none>",
  "nvcc's --compress-mode: speed is LZ4, default and balance zstd, size zstd at level 19, none none (as "
  "--compress)">, Group<grp_nvcc>;

// Link-time optimisation (docs/linker.md, "LTO"): one block, kept together.
def grp_lto : OptionGroup<"lto">, HelpText<"LINK-TIME OPTIMISATION">;
def dlto : LongFlag<"dlto">, Group<grp_lto>,
  HelpText<"Optimise the program at link time (nvcc -dlto objects' LTO-IR) with libnvJitLink: ptxlink's "
  "checks run on the PTX first, then each -arch's SASS comes from nvJitLink (fatbin, host-object, c outputs)">;
defm nvjitlink : Value<"nvjitlink", "<file>",
  "The libnvJitLink to load for -dlto (default: beside ptxas on PATH, $CUDA_HOME, $CUDA_PATH, "
  "/usr/local/cuda/lib64)">, Group<grp_lto>;
def : LongFlag<"lto">, Alias<dlto>, HelpText<"Alias for -dlto (nvlink's spelling)">;
def : LongFlag<"dlink-time-opt">, Alias<dlto>, HelpText<"Alias for -dlto (nvcc's long spelling)">;
def : LongFlag<"link-time-opt">, Alias<dlto>, HelpText<"Alias for -dlto (nvlink's long spelling)">;
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
def w : LetterFlag<"w">, Group<grp_misc>, HelpText<"Suppress warnings">;
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
def : LetterFlag<"v">, Alias<verbose>, HelpText<"Alias for --verbose">;
def version : LongFlag<"version">, Group<grp_misc>, HelpText<"Print the version and exit">;
def : LetterFlag<"V">, Alias<version>, HelpText<"Alias for --version">;
def help : LongFlag<"help">, Group<grp_misc>, HelpText<"Print this help and exit">;
def : LetterFlag<"h">, Alias<help>, HelpText<"Alias for --help">;
def help_man : LongFlag<"help-man">, Flags<[HelpHidden]>,
  HelpText<"Print the man page (roff) generated from this table">;
