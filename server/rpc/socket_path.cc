#include "rpc/socket_path.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace arrayd {
namespace {

std::string Parent(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// True when a server accepts connections on unix socket `path`.
bool Answers(const std::string& path) {
  sockaddr_un addr{};
  if (path.size() >= sizeof(addr.sun_path)) return false;
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

absl::Status PrivateDirectory(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create ", dir, ": ", std::strerror(errno)));
  }
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::PermissionDeniedError(absl::StrCat(dir, " is not a directory"));
  }
  if (st.st_uid != ::geteuid()) {
    return absl::PermissionDeniedError(absl::StrCat(
        dir, " belongs to user ", st.st_uid, ", not to this user (", ::geteuid(),
        "): refusing to serve there; remove it or pass --listen"));
  }
  if ((st.st_mode & 077) != 0 && ::chmod(dir.c_str(), 0700) != 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot make ", dir, " private: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::Status PrepareSocketPath(const std::string& path) {
  const std::string dir = Parent(path);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::NotFoundError(absl::StrCat("no directory ", dir, " for socket ", path));
  }
  if (st.st_uid != ::geteuid() && st.st_uid != 0) {
    return absl::PermissionDeniedError(absl::StrCat(
        "the directory of socket ", path, " belongs to user ", st.st_uid, ", not to this user"));
  }
  if ((st.st_mode & 022) != 0 && (st.st_mode & S_ISVTX) == 0) {
    return absl::PermissionDeniedError(absl::StrCat(
        "the directory of socket ", path, " can be changed by other users (mode ",
        absl::StrFormat("%04o", st.st_mode & 07777), ")"));
  }
  if (::lstat(path.c_str(), &st) != 0) return absl::OkStatus();  // free
  if (!S_ISSOCK(st.st_mode) || st.st_uid != ::geteuid()) {
    return absl::PermissionDeniedError(absl::StrCat(
        path, " exists and is not a socket of this user: refusing to replace it"));
  }
  if (Answers(path)) {
    return absl::AlreadyExistsError(
        absl::StrCat("address in use: a server answers on ", path));
  }
  ::unlink(path.c_str());  // a dead server's
  return absl::OkStatus();
}

bool PeerCredentials(int fd, uint32_t* uid, int32_t* pid) {
  ucred cred{};
  socklen_t len = sizeof(cred);
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return false;
  *uid = cred.uid;
  *pid = cred.pid;
  return true;
}

}  // namespace arrayd
