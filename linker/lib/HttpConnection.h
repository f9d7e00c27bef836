// One HTTP/1.1 exchange's connection for the remote cache (RemoteCache.h): TCP, or TLS over TCP for an
// https:// cache.
//
// The problem: hosted build caches and any server reached over a network that is not trusted speak only
// HTTPS, and a TLS-terminating proxy beside every developer's machine is a burden. This layer opens the
// connection with the remote cache's time limits (a connect limited in time, then each send and receive),
// and for https:// runs a TLS handshake through OpenSSL that verifies the server's certificate against
// the system's trust store (or the one $SSL_CERT_FILE / $SSL_CERT_DIR name, as every OpenSSL client
// honours) and its name against the URL's host. What goes over it is RemoteCache's business.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace ptxlink {

/// The TLS settings shared by every connection of one cache (OpenSSL's SSL_CTX): made once, used from
/// several threads.
class TlsClientContext {
public:
  /// The system's trust store, server certificates verified, TLS 1.2 or newer.
  static llvm::Expected<std::shared_ptr<TlsClientContext>> create();
  ~TlsClientContext();
  void *native() const { return Context; } // SSL_CTX *

private:
  TlsClientContext() = default;
  void *Context = nullptr;
};

class HttpConnection {
public:
  /// Connects to Host:Port within ConnectMillis; with Tls, also shakes hands (within the transfer limit)
  /// and verifies the server's certificate for Host. Each later send or receive waits at most
  /// TransferSeconds.
  static llvm::Expected<std::unique_ptr<HttpConnection>> open(const std::string &Host, const std::string &Port,
                                                                const TlsClientContext *Tls, int ConnectMillis,
                                                                int TransferSeconds);
  ~HttpConnection();
  HttpConnection(const HttpConnection &) = delete;
  HttpConnection &operator=(const HttpConnection &) = delete;

  llvm::Error sendAll(llvm::StringRef Bytes);
  /// Up to Size bytes into Buffer; 0 at the end of the stream.
  llvm::Expected<size_t> receive(char *Buffer, size_t Size);
  /// Whether the server has closed the connection (the stream ended, or a send or receive was refused
  /// or reset): what a kept-alive connection whose server gave up on it shows.
  bool peerClosed() const { return PeerClosed; }

private:
  HttpConnection() = default;
  int FD = -1;
  void *Tls = nullptr; // SSL *, for an https:// connection
  bool PeerClosed = false;
};

} // namespace ptxlink
