// ptxlink-ar's options. ar's command line is positional (`ptxlink-ar rcs lib.a a.o`: an operation word
// with modifiers, the archive, the members), so the table holds the options that may stand in place of
// the operation; the operation letters are described in the help's text (Archiver.cpp, ArDescription).
include "llvm/Option/OptParser.td"

def help : Flag<["--"], "help">, HelpText<"Print this help and exit">;
def : Flag<["-"], "help">, Alias<help>, HelpText<"Alias for --help">;
def : Flag<["-"], "h">, Alias<help>, HelpText<"Alias for --help">;
def version : Flag<["--"], "version">, HelpText<"Print the version and exit">;
def : Flag<["-"], "V">, Alias<version>, HelpText<"Alias for --version">;
def help_man : Flag<["--"], "help-man">, Flags<[HelpHidden]>,
  HelpText<"Print the man page (roff) generated from this table">;
