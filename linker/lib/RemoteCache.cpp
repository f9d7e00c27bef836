// The HTTP remote cache of `ptxlink --sass` (see RemoteCache.h): blobs, and HTTP/1.1 over a connection
// (HttpConnection.h: TCP, or TLS for https://).
#include "RemoteCache.h"

#include "ptxlink/LittleEndian.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"

#include <chrono>

#include <cstring>

using namespace llvm;

namespace ptxlink {

namespace {
constexpr char BlobMagic[8] = {'P', 'T', 'X', 'L', 'R', 'C', '0', '1'};
constexpr size_t BlobHeader = 8 + 1 + 32 + 8 + 32; // magic, kind, key, payload size, SHA-256 of the payload
constexpr int ConnectMillis = 2000, TransferSeconds = 3;
constexpr uint64_t MaxBlobBytes = uint64_t(1) << 30;

char kindLetter(CompileCache::EntryKind Kind) {
  return Kind == CompileCache::EntryKind::Link ? 'l' : Kind == CompileCache::EntryKind::PtxImage ? 'p' : 'c';
}

std::string sha256(StringRef Bytes) {
  std::array<uint8_t, 32> H = SHA256::hash(arrayRefFromStringRef(Bytes));
  return std::string(reinterpret_cast<const char *>(H.data()), H.size());
}

Error failed(const Twine &Why) { return createStringError(inconvertibleErrorCode(), Why); }

} // namespace

std::string RemoteCache::blobPath(StringRef Key, CompileCache::EntryKind Kind) {
  return "ac/" + toHex(sha256(("ptxlink-remote-1:" + Twine(kindLetter(Kind)) + ":" + Key).str()), /*LowerCase=*/true);
}

std::string RemoteCache::encodeBlob(StringRef Key, CompileCache::EntryKind Kind, StringRef Payload) {
  std::string B(BlobMagic, sizeof(BlobMagic));
  B += kindLetter(Kind);
  B += Key.str().substr(0, 32);
  B.resize(9 + 32, '\0');
  appendLE(B, uint64_t(Payload.size()));
  B += sha256(Payload);
  B += Payload;
  return B;
}

std::optional<std::string> RemoteCache::decodeBlob(StringRef Blob, StringRef Key, CompileCache::EntryKind Kind) {
  if (Blob.size() < BlobHeader || Blob.take_front(8) != StringRef(BlobMagic, 8) || Blob[8] != kindLetter(Kind))
    return std::nullopt;
  std::string K = Key.str().substr(0, 32);
  K.resize(32, '\0');
  if (Blob.substr(9, 32) != K)
    return std::nullopt;
  uint64_t Size = 0;
  for (int I = 0; I < 8; ++I)
    Size |= uint64_t(uint8_t(Blob[41 + I])) << (8 * I);
  StringRef Payload = Blob.drop_front(BlobHeader);
  if (Size != Payload.size() || sha256(Payload) != Blob.substr(49, 32))
    return std::nullopt;
  return Payload.str();
}

Expected<std::unique_ptr<RemoteCache>> RemoteCache::create(StringRef Url, std::string Header) {
  StringRef Rest = Url;
  const bool Https = Rest.consume_front("https://");
  if (!Https && !Rest.consume_front("http://"))
    return failed("--remote-cache: '" + Url + "' is not an http:// or https:// URL");
  auto C = std::make_unique<RemoteCache>();
  C->Url = Url.str();
  auto [HostPort, Path] = Rest.split('/');
  if (HostPort.contains('@'))
    return failed("--remote-cache: give credentials in $PTXLINK_REMOTE_CACHE_HEADER, not in the URL");
  auto [Host, Port] = HostPort.rsplit(':');
  if (!HostPort.contains(':'))
    Port = Https ? "443" : "80";
  unsigned PortNumber = 0;
  if (Host.empty() || Port.getAsInteger(10, PortNumber) || PortNumber == 0 || PortNumber > 65535)
    return failed("--remote-cache: '" + Url + "' names no host and port");
  C->Host = Host.str();
  C->Port = Port.str();
  C->Prefix = "/" + Path.rtrim('/').str();
  if (C->Prefix != "/")
    C->Prefix += "/";
  StringRef H = StringRef(Header).trim();
  if (!H.empty() && (!H.contains(':') || H.contains('\n') || H.contains('\r')))
    return failed("$PTXLINK_REMOTE_CACHE_HEADER must be one header line, 'Name: value'");
  C->Header = H.str();
  if (Https) {
    Expected<std::shared_ptr<TlsClientContext>> Tls = TlsClientContext::create();
    if (!Tls)
      return failed("--remote-cache: " + toString(Tls.takeError()));
    C->Tls = std::move(*Tls);
  }
  return std::move(C);
}

void RemoteCache::turnOff(const std::string &Why) {
  std::lock_guard<std::mutex> Lock(NoteLock);
  if (Note.empty())
    Note = "remote cache " + Url + ": " + Why + "; not used for the rest of this link";
  Off = true;
}

std::string RemoteCache::note() const {
  std::lock_guard<std::mutex> Lock(NoteLock);
  return Note;
}

namespace {
/// Reads one HTTP/1.1 response from a connection, no further: the status line and headers, then a body
/// delimited by Content-Length or chunked encoding (or, for neither, the rest of the stream), so that the
/// connection can carry the next request.
class ResponseReader {
public:
  ResponseReader(HttpConnection &C, std::chrono::steady_clock::time_point Deadline) : C(C), Deadline(Deadline) {}

  /// Whether any byte of the answer arrived (a kept-alive connection that the server had closed gives none).
  bool receivedAny() const { return !In.empty(); }
  /// Whether the connection may carry another request after this answer.
  bool reusable() const { return Reusable; }

  Expected<RemoteCache::Response> read() {
    size_t End;
    while ((End = StringRef(In).find("\r\n\r\n")) == StringRef::npos) {
      if (In.size() > 65536)
        return failed("the answer is not HTTP");
      if (Expected<bool> More = fill(); !More)
        return More.takeError();
      else if (!*More)
        return failed(In.empty() ? "no answer: the connection was closed" : "the answer is not HTTP");
    }
    RemoteCache::Response R;
    StringRef Heads = StringRef(In).take_front(End);
    if (!Heads.starts_with("HTTP/1."))
      return failed("the answer is not HTTP");
    SmallVector<StringRef, 16> Lines;
    Heads.split(Lines, "\r\n");
    SmallVector<StringRef, 3> Status;
    Lines.front().split(Status, ' ', 2);
    if (Status.size() < 2 || Status[1].getAsInteger(10, R.Status))
      return failed("the answer is not HTTP");
    std::optional<uint64_t> Length;
    bool Chunked = false, Close = !Heads.starts_with("HTTP/1.1");
    for (StringRef L : ArrayRef(Lines).drop_front()) {
      auto [Name, Value] = L.split(':');
      Name = Name.trim(), Value = Value.trim();
      if (Name.equals_insensitive("content-length")) {
        uint64_t V;
        if (Value.getAsInteger(10, V))
          return failed("the answer's Content-Length is not a number");
        Length = V;
      } else if (Name.equals_insensitive("transfer-encoding") && Value.contains_insensitive("chunked")) {
        Chunked = true;
      } else if (Name.equals_insensitive("connection") && Value.contains_insensitive("close")) {
        Close = true;
      }
    }
    Start = End + 4;
    if (R.Status == 204 || R.Status == 304 || (R.Status >= 100 && R.Status < 200)) {
      Reusable = !Close;
      return R;
    }
    if (Chunked) {
      if (Error E = readChunks(R.Body))
        return std::move(E);
    } else if (Length) {
      if (*Length > MaxBlobBytes + 65536)
        return failed("an answer larger than any entry");
      if (Error E = need(*Length, "the answer is cut short"))
        return std::move(E);
      R.Body = In.substr(Start, *Length);
    } else {
      // Delimited by the end of the stream: the connection ends with it.
      for (;;) {
        Expected<bool> More = fill();
        if (!More)
          return More.takeError();
        if (!*More)
          break;
      }
      R.Body = In.substr(Start);
      return R;
    }
    Reusable = !Close;
    return R;
  }

private:
  HttpConnection &C;
  std::chrono::steady_clock::time_point Deadline;
  std::string In;
  size_t Start = 0; // where the unread part of In begins
  bool Reusable = false;

  /// Appends what arrives next to In; false at the end of the stream.
  Expected<bool> fill() {
    char Buf[65536];
    Expected<size_t> N = C.receive(Buf, sizeof(Buf));
    if (!N)
      return N.takeError();
    In.append(Buf, *N);
    if (In.size() > MaxBlobBytes + 2 * 65536)
      return failed("an answer larger than any entry");
    if (std::chrono::steady_clock::now() > Deadline)
      return failed("the answer is too slow");
    return *N != 0;
  }
  /// At least N unread bytes in In, or Short as the error.
  Error need(uint64_t N, const char *Short) {
    while (In.size() - Start < N) {
      Expected<bool> More = fill();
      if (!More)
        return More.takeError();
      if (!*More)
        return failed(Short);
    }
    return Error::success();
  }
  /// The unread bytes up to the next CRLF (consumed with it).
  Expected<StringRef> line(const char *Short) {
    size_t Eol;
    while ((Eol = StringRef(In).find("\r\n", Start)) == StringRef::npos) {
      if (In.size() - Start > 4096)
        return failed("the answer's chunks are malformed");
      Expected<bool> More = fill();
      if (!More)
        return More.takeError();
      if (!*More)
        return failed(Short);
    }
    StringRef L = StringRef(In).slice(Start, Eol);
    Start = Eol + 2;
    return L;
  }
  Error readChunks(std::string &Body) {
    for (;;) {
      Expected<StringRef> SizeLine = line("the answer's chunks are cut short");
      if (!SizeLine)
        return SizeLine.takeError();
      uint64_t Size;
      if (SizeLine->split(';').first.trim().getAsInteger(16, Size))
        return failed("the answer's chunks are malformed");
      if (Size == 0)
        break;
      if (Size > MaxBlobBytes + 65536 - Body.size())
        return failed("an answer larger than any entry");
      if (Error E = need(Size + 2, "the answer's chunks are cut short"))
        return E;
      Body.append(In, Start, Size);
      Start += Size;
      if (StringRef(In).substr(Start, 2) != "\r\n")
        return failed("the answer's chunks are malformed");
      Start += 2;
    }
    // Trailers, up to the empty line.
    for (;;) {
      Expected<StringRef> Trailer = line("the answer's chunks are cut short");
      if (!Trailer)
        return Trailer.takeError();
      if (Trailer->empty())
        return Error::success();
    }
  }
};
} // namespace

std::unique_ptr<HttpConnection> RemoteCache::takeIdleConnection() const {
  std::lock_guard<std::mutex> Lock(PoolLock);
  if (Idle.empty())
    return nullptr;
  std::unique_ptr<HttpConnection> C = std::move(Idle.back());
  Idle.pop_back();
  return C;
}

void RemoteCache::keepIdleConnection(std::unique_ptr<HttpConnection> C) const {
  std::lock_guard<std::mutex> Lock(PoolLock);
  if (Idle.size() < MaxIdleConnections)
    Idle.push_back(std::move(C));
}

Expected<RemoteCache::Response> RemoteCache::request(StringRef Method, StringRef Path, StringRef Body) const {
  std::string Head = (Method + " " + Prefix + Path + " HTTP/1.1\r\nHost: " + Host + ":" + Port +
                      "\r\nUser-Agent: ptxlink\r\n")
                         .str();
  if (!Header.empty())
    Head += Header + "\r\n";
  if (Method == "PUT")
    Head += "Content-Type: application/octet-stream\r\nContent-Length: " + std::to_string(Body.size()) + "\r\n";
  Head += "\r\n";

  // A connection kept from an earlier request first (no connect, no TLS handshake); the server may have
  // closed it meanwhile (its keep-alive time ran out), which shows as a failed send or an answer without a
  // byte: then once more on a new connection.
  for (;;) {
    std::unique_ptr<HttpConnection> C = takeIdleConnection();
    const bool Reused = C != nullptr;
    if (!C) {
      Expected<std::unique_ptr<HttpConnection>> Opened =
          HttpConnection::open(Host, Port, Tls.get(), ConnectMillis, TransferSeconds);
      if (!Opened)
        return Opened.takeError();
      C = std::move(*Opened);
    }
    Error Sent = Error::success();
    for (StringRef Part : {StringRef(Head), Body})
      if (!Sent)
        Sent = C->sendAll(Part);
    if (Sent) {
      if (Reused && C->peerClosed()) {
        consumeError(std::move(Sent));
        continue;
      }
      return std::move(Sent);
    }
    ResponseReader Reader(*C, std::chrono::steady_clock::now() + std::chrono::seconds(3 * TransferSeconds));
    Expected<Response> R = Reader.read();
    // Only a connection the server closed is retried: a server that is slow to answer costs its time
    // limit once, not twice.
    if (!R && Reused && C->peerClosed() && !Reader.receivedAny()) {
      consumeError(R.takeError());
      continue;
    }
    if (R && Reader.reusable())
      keepIdleConnection(std::move(C));
    return R;
  }
}

std::optional<std::string> RemoteCache::get(StringRef Key, CompileCache::EntryKind Kind) {
  if (Off)
    return std::nullopt;
  Expected<Response> R = request("GET", blobPath(Key, Kind), "");
  if (!R) {
    turnOff(toString(R.takeError()));
    return std::nullopt;
  }
  if (R->Status == 404)
    return std::nullopt;
  if (R->Status != 200) {
    turnOff("GET answered " + std::to_string(R->Status));
    return std::nullopt;
  }
  std::optional<std::string> Payload = decodeBlob(R->Body, Key, Kind);
  if (!Payload) {
    turnOff("an entry it sent does not verify (damaged, or not the one asked for)");
    return std::nullopt;
  }
  ++Hits;
  return Payload;
}

void RemoteCache::put(StringRef Key, CompileCache::EntryKind Kind, StringRef Payload) {
  if (Off)
    return;
  Expected<Response> R = request("PUT", blobPath(Key, Kind), encodeBlob(Key, Kind, Payload));
  if (!R) {
    turnOff(toString(R.takeError()));
    return;
  }
  if (R->Status < 200 || R->Status > 299) {
    turnOff("PUT answered " + std::to_string(R->Status) +
            (R->Status == 507 || R->Status == 413 ? " (full, or the entry is too large for it)" : ""));
    return;
  }
  ++Stored;
}

} // namespace ptxlink
