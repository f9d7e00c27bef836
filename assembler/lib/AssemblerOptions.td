// ptxlink-as's options (llvm-tblgen -gen-opt-parser-defs turns this into AssemblerOptions.inc, the table
// runAssemblerTool parses with, prints --help from and prints the man page from). Inputs are the
// arguments that are not options; after `--` every argument is an input.
include "llvm/Option/OptParser.td"

def o : JoinedOrSeparate<["-"], "o">, MetaVarName<"<file>">,
  HelpText<"Write the object to <file> ('-' for standard output); without -o, a.ptx gives a.o">;
def output_dir : Separate<["--"], "output-dir">, MetaVarName<"<dir>">,
  HelpText<"Batch mode: assemble each input as its own module into <dir>/<name>.o (like cc -c)">;
def : Joined<["--"], "output-dir=">, Alias<output_dir>, MetaVarName<"<dir>">, Flags<[HelpHidden]>;
def print_ptx : Flag<["--"], "print-ptx">,
  HelpText<"Print the assembled module(s) back as PTX instead of writing an object">;
def Werror : Flag<["--"], "Werror">, HelpText<"Treat warnings as errors">;
def : Flag<["-"], "Werror">, Alias<Werror>, HelpText<"Alias for --Werror">;
def w : Flag<["-"], "w">, HelpText<"Suppress warnings">;
def json : Flag<["--"], "json">, HelpText<"Print diagnostics as JSON lines (docs/diagnostics-json.md)">;
def error_limit : Separate<["--"], "error-limit">, MetaVarName<"<n>">,
  HelpText<"Stop after <n> errors (0 = no limit; default 20)">;
def : Joined<["--"], "error-limit=">, Alias<error_limit>, MetaVarName<"<n>">, Flags<[HelpHidden]>;
def help : Flag<["--"], "help">, HelpText<"Print this help and exit">;
def : Flag<["-"], "h">, Alias<help>, HelpText<"Alias for --help">;
def version : Flag<["--"], "version">, HelpText<"Print the version and object format, and exit">;
def help_man : Flag<["--"], "help-man">, Flags<[HelpHidden]>,
  HelpText<"Print the man page (roff) generated from this table">;
