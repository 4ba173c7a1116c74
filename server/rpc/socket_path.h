// Same-host socket paths the server can trust (issue 13): a unix socket
// lives in a directory that only its owner (or root, with the sticky bit,
// as /tmp) can change, and a path another process still serves on is never
// taken over.
#ifndef ARRAYD_RPC_SOCKET_PATH_H_
#define ARRAYD_RPC_SOCKET_PATH_H_

#include <string>

#include "absl/status/status.h"

namespace arrayd {

// The directory `dir`, made with mode 0700 if missing; it must be a real
// directory (no symlink) owned by this user and closed to others (a looser
// mode of our own directory is tightened to 0700). PermissionDenied when it
// belongs to another user: someone could be waiting in it.
absl::Status PrivateDirectory(const std::string& dir);

// Readies unix socket `path` for bind: its directory must be owned by this
// user or by root, and closed to other writers unless sticky (/tmp). An
// existing file there must be a socket of this user that nobody serves on
// (it is removed); AlreadyExists when a server answers on it ("address in
// use"), PermissionDenied when it belongs to another user or is no socket.
absl::Status PrepareSocketPath(const std::string& path);

// The user id of the process at the other end of connected unix socket
// `fd` (SO_PEERCRED), with its pid; false when unknown.
bool PeerCredentials(int fd, uint32_t* uid, int32_t* pid);

}  // namespace arrayd

#endif  // ARRAYD_RPC_SOCKET_PATH_H_
