#include "sources/msrrp/smb_pipe_transport.h"

#include <fcntl.h>
#include <libsmbclient.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>
#include <string>

namespace perfhive {
namespace {

void CopyOut(const std::string& value, char* out, int length) {
  if (length <= 0) return;
  size_t n = std::min(value.size(), static_cast<size_t>(length - 1));
  std::memcpy(out, value.data(), n);
  out[n] = '\0';
}

// libsmbclient's own log lines would go to stderr; the agent reports errors itself, with
// the host's name, and the library's debug output is not for its users.
void DiscardLog(void*, int, const char*) {}

// One-time process setup: SIGPIPE ignored, because a write to a server that has gone must be
// an error return, not the end of the agent.
void InitializeProcess() {
  static std::once_flag once;
  std::call_once(once, [] { std::signal(SIGPIPE, SIG_IGN); });
}

// libsmbclient keeps process-wide state (its loaded configuration, talloc stack frames), and
// Debian's build does not export smbc_thread_posix(), which would make that state per thread.
// So transports used from several threads take turns.
std::mutex& LibraryMutex() {
  static std::mutex mutex;
  return mutex;
}

// Whether the host accepts a TCP connection on the port within the timeout. libsmbclient says
// "connection refused" both for a host that refuses the connection and for a reachable server
// whose winreg pipe has no service behind it; this tells the two apart, and bounds the
// connect by the timeout whatever the resolver and libsmbclient do.
Status ProbeTcp(const RemoteTarget& target, std::chrono::milliseconds timeout) {
  std::string where = "connecting to " + target.host + " port " + std::to_string(target.port);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc =
          getaddrinfo(target.host.c_str(), std::to_string(target.port).c_str(), &hints, &found);
      rc != 0) {
    return Status::Unavailable("cannot resolve " + target.host + ": " + gai_strerror(rc));
  }
  Status result = Status::Unavailable(where + ": no address");
  for (addrinfo* address = found; address != nullptr; address = address->ai_next) {
    int fd = socket(address->ai_family, address->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                    address->ai_protocol);
    if (fd < 0) continue;
    int error = 0;
    if (connect(fd, address->ai_addr, address->ai_addrlen) != 0) {
      error = errno;
      if (error == EINPROGRESS) {
        pollfd wait{.fd = fd, .events = POLLOUT, .revents = 0};
        int ready = poll(&wait, 1, static_cast<int>(timeout.count()));
        socklen_t length = sizeof error;
        if (ready == 0) {
          error = ETIMEDOUT;
        } else if (ready < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) {
          error = errno;
        }
      }
    }
    close(fd);
    if (error == 0) {
      result = Status();
      break;
    }
    result = error == ETIMEDOUT
                 ? Status::DeadlineExceeded(where + ": timed out (host unreachable)")
                 : Status::Unavailable(where + ": " + std::strerror(error) + " (host unreachable)");
  }
  freeaddrinfo(found);
  return result;
}

// `reached`: the host accepted the TCP connection, so a refusal is about the pipe.
Status Classify(int error, const std::string& what, bool reached) {
  std::string text = what + ": " + std::strerror(error);
  if (reached && error == ECONNREFUSED) error = ENOENT;
  switch (error) {
    case EACCES:
    case EPERM:
      return Status::PermissionDenied(what +
                                      ": access denied (wrong user name or password, or "
                                      "an account that may not read the registry)");
    case ENOENT:
      return Status::NotFound(what +
                              ": the winreg pipe does not exist (the Remote Registry "
                              "service is not running)");
    case ETIMEDOUT:
      return Status::DeadlineExceeded(what + ": timed out");
    default:
      return Status::Unavailable(text);
  }
}

}  // namespace

SmbPipeTransport::SmbPipeTransport(SmbCredentials credentials)
    : credentials_(std::move(credentials)) {}

SmbPipeTransport::~SmbPipeTransport() {
  if (context_ == nullptr) return;
  std::lock_guard lock(LibraryMutex());
  if (pipe_ != nullptr) smbc_getFunctionClose(context_)(context_, pipe_);
  smbc_free_context(context_, 1);
}

void SmbPipeTransport::SupplyCredentials(SMBCCTX* context, const char*, const char*,
                                         char* workgroup, int workgroup_length, char* user,
                                         int user_length, char* password, int password_length) {
  auto* self = static_cast<SmbPipeTransport*>(smbc_getOptionUserData(context));
  if (!self->credentials_.domain.empty()) {
    CopyOut(self->credentials_.domain, workgroup, workgroup_length);
  }
  CopyOut(self->credentials_.user, user, user_length);
  CopyOut(self->credentials_.password, password, password_length);
}

Result<std::unique_ptr<SmbPipeTransport>> SmbPipeTransport::Open(
    const RemoteTarget& target, const SmbCredentials& credentials,
    std::chrono::milliseconds timeout) {
  InitializeProcess();
  if (Status reachable = ProbeTcp(target, timeout); !reachable.ok()) return reachable;
  std::unique_ptr<SmbPipeTransport> transport(new SmbPipeTransport(credentials));
  std::lock_guard lock(LibraryMutex());
  SMBCCTX* context = smbc_new_context();
  if (context == nullptr) return Status::Internal("libsmbclient: cannot create a context");
  transport->context_ = context;
  smbc_setDebug(context, 0);
  smbc_setLogCallback(context, nullptr, DiscardLog);
  smbc_setOptionUserData(context, transport.get());
  smbc_setFunctionAuthDataWithContext(context, SupplyCredentials);
  smbc_setOptionUseKerberos(context, false);
  smbc_setOptionNoAutoAnonymousLogin(context, true);
  smbc_setOptionProtocols(context, "SMB2_02", "SMB3");
  smbc_setTimeout(context, static_cast<int>(timeout.count()));
  if (smbc_init_context(context) == nullptr) {
    return Status::Internal(std::string("libsmbclient: cannot initialize a context: ") +
                            std::strerror(errno));
  }
  std::string url = "smb://" + target.host + ":" + std::to_string(target.port) + "/IPC$/winreg";
  errno = 0;
  transport->pipe_ = smbc_getFunctionOpen(context)(context, url.c_str(), O_RDWR, 0);
  if (transport->pipe_ == nullptr) {
    return Classify(errno ? errno : EIO, "opening \\PIPE\\winreg over SMB", true);
  }
  return transport;
}

Status SmbPipeTransport::Write(std::span<const uint8_t> bytes) {
  std::lock_guard lock(LibraryMutex());
  size_t done = 0;
  while (done < bytes.size()) {
    errno = 0;
    ssize_t n =
        smbc_getFunctionWrite(context_)(context_, pipe_, bytes.data() + done, bytes.size() - done);
    if (n <= 0) return Classify(errno ? errno : EIO, "writing to \\PIPE\\winreg", false);
    done += static_cast<size_t>(n);
  }
  return Status();
}

Status SmbPipeTransport::ReadExactly(std::span<uint8_t> out) {
  std::lock_guard lock(LibraryMutex());
  size_t done = 0;
  while (done < out.size()) {
    errno = 0;
    ssize_t n =
        smbc_getFunctionRead(context_)(context_, pipe_, out.data() + done, out.size() - done);
    if (n < 0) return Classify(errno ? errno : EIO, "reading from \\PIPE\\winreg", false);
    if (n == 0) {
      return Status::Unavailable("reading from \\PIPE\\winreg: the server closed the pipe");
    }
    done += static_cast<size_t>(n);
  }
  return Status();
}

}  // namespace perfhive
