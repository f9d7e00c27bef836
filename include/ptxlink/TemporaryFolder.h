// Private temporary folders that do not outlive their process, even when it is interrupted.
//
// The problem: `ptxlink --sass` gives ptxas and nvlink their files in a folder of its own under $TMPDIR
// (ptxlink-sass-XXXXXX: every unit's PTX, cubin and log, megabytes for a large program). A normal run
// removes it; SIGINT, SIGTERM or SIGHUP used to leave it behind, since LLVM's signal handling, which
// removes the atomic writer's temporaries (llvm::sys::RemoveFileOnSignal), removes regular files only,
// never a folder. A registered folder is emptied and removed on those signals, before LLVM's own handler
// runs (which removes its registered files and ends the process by the signal, as before).
#pragma once

#include "llvm/ADT/StringRef.h"

namespace ptxlink {

/// Registers Folder, which the caller created and which holds only files the process put there (no
/// subfolders), for removal with its files on SIGINT, SIGTERM and SIGHUP. At most 32 folders are
/// registered at a time (a process has one or two); beyond that, or for a path longer than 1023 bytes,
/// the folder is not registered. Thread-safe.
void removeFolderOnSignal(llvm::StringRef Folder);

/// Undoes removeFolderOnSignal (after the caller removed the folder, or to keep it: --save-temps).
void dontRemoveFolderOnSignal(llvm::StringRef Folder);

} // namespace ptxlink
