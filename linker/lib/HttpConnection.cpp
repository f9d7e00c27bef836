// TCP and TLS connections of the remote cache (see HttpConnection.h).
#include "HttpConnection.h"

#include "llvm/ADT/Twine.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <optional>
#include <pthread.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <csignal>
#include <ctime>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

using namespace llvm;

namespace ptxlink {

namespace {
Error failed(const Twine &Why) { return createStringError(inconvertibleErrorCode(), Why); }

/// OpenSSL's reason for the last failure on this thread (its error queue, emptied), or Fallback.
std::string tlsReason(const char *Fallback) {
  std::string Reason;
  while (unsigned long E = ERR_get_error()) {
    if (!Reason.empty()) // the first is the cause; later ones repeat it from further up
      continue;
    char Buf[256];
    ERR_error_string_n(E, Buf, sizeof(Buf));
    const char *R = ERR_reason_error_string(E);
    Reason = R ? R : Buf;
  }
  return Reason.empty() ? Fallback : Reason;
}

SSL *ssl(void *P) { return static_cast<SSL *>(P); }

/// SIGPIPE blocked on this thread while it lives, and one raised meanwhile taken back: OpenSSL writes to the
/// socket with write(), without MSG_NOSIGNAL, and a server that closes early must cost a note, not the
/// process.
class SigpipeBlocked {
public:
  SigpipeBlocked() {
    sigset_t Pipe;
    sigemptyset(&Pipe);
    sigaddset(&Pipe, SIGPIPE);
    sigset_t Pending;
    sigpending(&Pending);
    WasPending = sigismember(&Pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &Pipe, &Old);
  }
  ~SigpipeBlocked() {
    sigset_t Pipe;
    sigemptyset(&Pipe);
    sigaddset(&Pipe, SIGPIPE);
    if (!WasPending) {
      timespec Zero{0, 0};
      while (sigtimedwait(&Pipe, nullptr, &Zero) == SIGPIPE) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &Old, nullptr);
  }

private:
  sigset_t Old;
  bool WasPending = false;
};

/// Whether errno after a failed send or receive says the server closed or reset the connection.
bool closedByPeer(int Errno) { return Errno == EPIPE || Errno == ECONNRESET; }

/// A failed send or receive in words: a time limit reached, or the system's or TLS's reason.
std::string ioFailure(int Errno) { return Errno == EAGAIN || Errno == EWOULDBLOCK ? "timed out" : std::strerror(Errno); }
} // namespace

Expected<std::shared_ptr<TlsClientContext>> TlsClientContext::create() {
  std::shared_ptr<TlsClientContext> C(new TlsClientContext());
  SSL_CTX *Ctx = SSL_CTX_new(TLS_client_method());
  if (!Ctx)
    return failed("cannot set up TLS: " + tlsReason("SSL_CTX_new failed"));
  C->Context = Ctx;
  SSL_CTX_set_min_proto_version(Ctx, TLS1_2_VERSION);
  SSL_CTX_set_verify(Ctx, SSL_VERIFY_PEER, nullptr);
  // The system's store, or $SSL_CERT_FILE / $SSL_CERT_DIR where set.
  if (SSL_CTX_set_default_verify_paths(Ctx) != 1)
    return failed("cannot load the trusted certificates: " + tlsReason("no trust store"));
  return C;
}

TlsClientContext::~TlsClientContext() { SSL_CTX_free(static_cast<SSL_CTX *>(Context)); }

Expected<std::unique_ptr<HttpConnection>> HttpConnection::open(const std::string &Host, const std::string &Port,
                                                               const TlsClientContext *Tls, int ConnectMillis,
                                                               int TransferSeconds) {
  addrinfo Hints{}, *Addresses = nullptr;
  Hints.ai_family = AF_UNSPEC;
  Hints.ai_socktype = SOCK_STREAM;
  if (int E = getaddrinfo(Host.c_str(), Port.c_str(), &Hints, &Addresses))
    return failed("cannot resolve " + Host + ": " + gai_strerror(E));
  std::unique_ptr<HttpConnection> C(new HttpConnection());
  std::string ConnectError = "no address";
  for (addrinfo *A = Addresses; A && C->FD < 0; A = A->ai_next) {
    int FD = ::socket(A->ai_family, A->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, A->ai_protocol);
    if (FD < 0)
      continue;
    int RC = ::connect(FD, A->ai_addr, A->ai_addrlen);
    if (RC != 0 && errno == EINPROGRESS) {
      pollfd P{FD, POLLOUT, 0};
      RC = ::poll(&P, 1, ConnectMillis) == 1 ? 0 : -1;
      int Err = RC == 0 ? 0 : ETIMEDOUT;
      socklen_t Len = sizeof(Err);
      if (RC == 0 && (getsockopt(FD, SOL_SOCKET, SO_ERROR, &Err, &Len) != 0 || Err != 0))
        RC = -1;
      errno = Err;
    }
    if (RC != 0) {
      ConnectError = errno == ETIMEDOUT ? "connection timed out" : std::strerror(errno);
      ::close(FD);
      continue;
    }
    C->FD = FD;
  }
  freeaddrinfo(Addresses);
  if (C->FD < 0)
    return failed("cannot connect to " + Host + ":" + Port + ": " + ConnectError);
  // Blocking from here, each send and receive (the handshake's included) limited in time.
  ::fcntl(C->FD, F_SETFL, ::fcntl(C->FD, F_GETFL) & ~O_NONBLOCK);
  timeval TV{TransferSeconds, 0};
  ::setsockopt(C->FD, SOL_SOCKET, SO_RCVTIMEO, &TV, sizeof(TV));
  ::setsockopt(C->FD, SOL_SOCKET, SO_SNDTIMEO, &TV, sizeof(TV));
  if (!Tls)
    return C;

  SigpipeBlocked Guard;
  ERR_clear_error();
  SSL *S = SSL_new(static_cast<SSL_CTX *>(Tls->native()));
  if (!S)
    return failed("cannot set up TLS: " + tlsReason("SSL_new failed"));
  C->Tls = S;
  SSL_set_fd(S, C->FD);
  // The certificate must be the URL's host's: an IP address is checked against the certificate's IP
  // entries, a name against its DNS names (and sent as SNI, which a server of several names needs).
  in6_addr Address6;
  in_addr Address4;
  const bool IsAddress = inet_pton(AF_INET, Host.c_str(), &Address4) == 1 || inet_pton(AF_INET6, Host.c_str(), &Address6) == 1;
  if (IsAddress) {
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(S), Host.c_str());
  } else {
    SSL_set_tlsext_host_name(S, Host.c_str());
    SSL_set1_host(S, Host.c_str());
  }
  if (SSL_connect(S) != 1) {
    const int Errno = errno;
    const long Verify = SSL_get_verify_result(S);
    if (Verify != X509_V_OK)
      return failed("TLS handshake with " + Host + ":" + Port + ": the server's certificate is not trusted (" +
                    X509_verify_cert_error_string(Verify) + ")");
    std::string Reason = tlsReason(Errno ? ioFailure(Errno).c_str() : "the server closed the connection");
    if (Reason == "wrong version number" || Reason == "packet length too long")
      Reason += " (the server does not speak TLS on this port: an http:// URL?)";
    return failed("TLS handshake with " + Host + ":" + Port + " failed: " + Reason);
  }
  return C;
}

HttpConnection::~HttpConnection() {
  if (Tls)
    SSL_free(ssl(Tls)); // no close_notify: the exchange is complete or abandoned, and the socket closes
  if (FD >= 0)
    ::close(FD);
}

Error HttpConnection::sendAll(StringRef Bytes) {
  std::optional<SigpipeBlocked> Guard;
  if (Tls)
    Guard.emplace();
  while (!Bytes.empty()) {
    if (Tls) {
      ERR_clear_error();
      errno = 0;
      int N = SSL_write(ssl(Tls), Bytes.data(), int(std::min<size_t>(Bytes.size(), 1 << 30)));
      if (N <= 0) {
        PeerClosed = closedByPeer(errno);
        return failed("cannot send: " + (errno ? ioFailure(errno) : tlsReason("TLS write failed")));
      }
      Bytes = Bytes.drop_front(N);
      continue;
    }
    ssize_t N = ::send(FD, Bytes.data(), Bytes.size(), MSG_NOSIGNAL);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0) {
      PeerClosed = closedByPeer(errno);
      return failed("cannot send: " + ioFailure(errno));
    }
    Bytes = Bytes.drop_front(N);
  }
  return Error::success();
}

Expected<size_t> HttpConnection::receive(char *Buffer, size_t Size) {
  std::optional<SigpipeBlocked> Guard;
  if (Tls)
    Guard.emplace();
  for (;;) {
    if (Tls) {
      ERR_clear_error();
      errno = 0;
      int N = SSL_read(ssl(Tls), Buffer, int(std::min<size_t>(Size, 1 << 30)));
      if (N > 0)
        return size_t(N);
      const int Why = SSL_get_error(ssl(Tls), N);
      if (Why == SSL_ERROR_ZERO_RETURN) {
        PeerClosed = true;
        return 0; // the server's close_notify
      }
      // A server that closes the connection without close_notify after a complete answer (many do, with
      // Connection: close) ends the stream too; the HTTP layer sees whether the answer is whole.
      if ((Why == SSL_ERROR_SYSCALL && errno == 0) ||
          (Why == SSL_ERROR_SSL && ERR_GET_REASON(ERR_peek_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING)) {
        ERR_clear_error();
        PeerClosed = true;
        return 0;
      }
      if (errno == EINTR)
        continue;
      PeerClosed = closedByPeer(errno);
      return failed("no answer: " + (errno ? ioFailure(errno) : tlsReason("TLS read failed")));
    }
    ssize_t N = ::recv(FD, Buffer, Size, 0);
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0) {
      PeerClosed = closedByPeer(errno);
      return failed("no answer: " + ioFailure(errno));
    }
    PeerClosed = N == 0;
    return size_t(N);
  }
}

} // namespace ptxlink
