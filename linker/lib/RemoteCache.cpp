// The HTTP remote cache of `ptxlink --sass` (see RemoteCache.h): blobs, and HTTP/1.1 over a connection
// (HttpConnection.h: TCP, or TLS for https://).
#include "RemoteCache.h"

#include "ptxlink/LittleEndian.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"

#include <cstring>

using namespace llvm;

namespace ptxlink {

namespace {
constexpr char BlobMagic[8] = {'P', 'T', 'X', 'L', 'R', 'C', '0', '1'};
constexpr size_t BlobHeader = 8 + 1 + 32 + 8 + 32; // magic, kind, key, payload size, SHA-256 of the payload
constexpr int ConnectMillis = 2000, TransferSeconds = 3;
constexpr uint64_t MaxBlobBytes = uint64_t(1) << 30;

char kindLetter(CompileCache::EntryKind Kind) { return Kind == CompileCache::EntryKind::Link ? 'l' : 'c'; }

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

Expected<RemoteCache::Response> RemoteCache::request(StringRef Method, StringRef Path, StringRef Body) const {
  Expected<std::unique_ptr<HttpConnection>> Connection =
      HttpConnection::open(Host, Port, Tls.get(), ConnectMillis, TransferSeconds);
  if (!Connection)
    return Connection.takeError();
  HttpConnection &C = **Connection;

  std::string Head = (Method + " " + Prefix + Path + " HTTP/1.1\r\nHost: " + Host + ":" + Port +
                      "\r\nConnection: close\r\nUser-Agent: ptxlink\r\n")
                         .str();
  if (!Header.empty())
    Head += Header + "\r\n";
  if (Method == "PUT")
    Head += "Content-Type: application/octet-stream\r\nContent-Length: " + std::to_string(Body.size()) + "\r\n";
  Head += "\r\n";
  for (StringRef Part : {StringRef(Head), Body})
    if (Error E = C.sendAll(Part))
      return std::move(E);

  std::string In;
  char Buf[65536];
  auto Deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3 * TransferSeconds);
  for (;;) {
    Expected<size_t> N = C.receive(Buf, sizeof(Buf));
    if (!N)
      return N.takeError();
    if (*N == 0)
      break;
    In.append(Buf, *N);
    if (In.size() > MaxBlobBytes + 65536)
      return failed("an answer larger than any entry");
    if (std::chrono::steady_clock::now() > Deadline)
      return failed("the answer is too slow");
  }
  // Status line, headers, body (Content-Length, chunked, or up to the end: Connection: close).
  StringRef Text = In;
  size_t End = Text.find("\r\n\r\n");
  if (!Text.starts_with("HTTP/1.") || End == StringRef::npos)
    return failed("the answer is not HTTP");
  StringRef Heads = Text.take_front(End), Rest = Text.drop_front(End + 4);
  Response R;
  SmallVector<StringRef, 16> Lines;
  Heads.split(Lines, "\r\n");
  SmallVector<StringRef, 3> Status;
  Lines.front().split(Status, ' ', 2);
  if (Status.size() < 2 || Status[1].getAsInteger(10, R.Status))
    return failed("the answer is not HTTP");
  std::optional<uint64_t> Length;
  bool Chunked = false;
  for (StringRef L : ArrayRef(Lines).drop_front()) {
    auto [Name, Value] = L.split(':');
    Value = Value.trim();
    if (Name.trim().equals_insensitive("content-length")) {
      uint64_t V;
      if (Value.getAsInteger(10, V))
        return failed("the answer's Content-Length is not a number");
      Length = V;
    } else if (Name.trim().equals_insensitive("transfer-encoding") && Value.contains_insensitive("chunked")) {
      Chunked = true;
    }
  }
  if (Method == "HEAD")
    return R;
  if (Chunked) {
    for (;;) {
      size_t Eol = Rest.find("\r\n");
      uint64_t Size;
      if (Eol == StringRef::npos || Rest.take_front(Eol).split(';').first.trim().getAsInteger(16, Size) ||
          Size > Rest.size() - Eol - 2)
        return failed("the answer's chunks are cut short");
      if (Size == 0)
        break;
      R.Body += Rest.substr(Eol + 2, Size);
      Rest = Rest.drop_front(Eol + 2 + Size);
      if (!Rest.consume_front("\r\n"))
        return failed("the answer's chunks are malformed");
    }
  } else if (Length) {
    if (Rest.size() < *Length)
      return failed("the answer is cut short");
    R.Body = Rest.take_front(*Length).str();
  } else {
    R.Body = Rest.str();
  }
  return R;
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
