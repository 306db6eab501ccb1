// KeepNewFilesPrivate: for a process whose every file is someone's data or keys (the server's
// store, enrollment registry and CA), makes what it creates its owner's alone, whatever umask it
// was started with.

#ifndef PERFHIVE_PORT_PRIVATE_FILES_H_
#define PERFHIVE_PORT_PRIVATE_FILES_H_

namespace perfhive {

// From now on, files are created 0600 and folders 0700 (POSIX: umask 077). Windows: nothing to
// do, new files take their folder's ACL.
void KeepNewFilesPrivate();

}  // namespace perfhive

#endif  // PERFHIVE_PORT_PRIVATE_FILES_H_
