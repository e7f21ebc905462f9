// A minimal S3 client for the one request Arrow's S3 file system cannot send: PutObject with
// `If-None-Match: *`, which S3 (since August 2024) and most S3-compatible stores perform
// atomically: of several racing puts of one key, exactly one creates the object and the others
// get 412 Precondition Failed. Arrow builds its AWS SDK into libarrow_s3 with hidden symbols and
// exposes no way to add a header, so this client speaks HTTP itself (libcurl) and signs with
// AWS Signature Version 4 (OpenSSL's SHA-256 and HMAC). Internal to the io layer.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fjord/result.h"

namespace fjord::s3 {

struct Credentials {
  std::string access_key;  // empty: send the request unsigned (anonymous)
  std::string secret_key;
  std::string session_token;  // temporary credentials only
};

// ---- AWS Signature Version 4 (exposed for tests) ---------------------------------------------

std::string Sha256Hex(std::string_view data);
// RFC 3986 percent-encoding as SigV4 wants it: unreserved characters stay, everything else is
// %XX (upper case); '/' stays when `keep_slash` (object keys in paths).
std::string UriEncode(std::string_view s, bool keep_slash);
// "20130524T000000Z" for a point in time.
std::string AmzDate(std::chrono::system_clock::time_point t);

struct SignedRequest {
  std::string method;           // "PUT"
  std::string canonical_uri;    // the path exactly as sent, already encoded: "/bucket/a%20b"
  std::string canonical_query;  // "" when there is none
  // Lower-case names; values as sent. Every header listed here is signed.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string payload_sha256;  // hex, as in x-amz-content-sha256
};

// The canonical request and the string to sign (for tests and error reports).
std::string CanonicalRequest(const SignedRequest& req);
std::string StringToSign(const SignedRequest& req, const std::string& amz_date,
                         const std::string& region, const std::string& service);
// The value of the Authorization header. `amz_date` must equal the x-amz-date header.
std::string AuthorizationHeader(const SignedRequest& req, const Credentials& creds,
                                const std::string& amz_date, const std::string& region,
                                const std::string& service);

// ---- The client ------------------------------------------------------------------------------

struct ClientOptions {
  std::string scheme = "https";  // "http" or "https"
  // host[:port] of the store; empty means AWS: s3.<region>.amazonaws.com.
  std::string endpoint;
  std::string region = "us-east-1";
  // Bucket in the host name (bucket.endpoint) rather than in the path (endpoint/bucket).
  bool virtual_addressing = false;
  // Called for every request, so that refreshed temporary credentials are picked up.
  std::function<Credentials()> credentials;
  // 409 ConditionalRequestConflict (a concurrent conditional write on the same key was in
  // flight) is retried this many times, with a growing pause.
  int conflict_retries = 5;
};

// Thread-safe. Connections are pooled and reused.
class Client {
 public:
  static Result<std::unique_ptr<Client>> Make(ClientOptions options);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Creates `key` in `bucket` with `data` iff no object has that key, atomically on stores that
  // honour If-None-Match. OK: this call created it. AlreadyExists: an object was there (HTTP
  // 412). IOError: anything else, with the HTTP status and an excerpt of the store's answer; the
  // outcome of a put that failed in transit or with a 5xx is unknown (it may have been stored).
  Status PutIfAbsent(const std::string& bucket, const std::string& key, std::string_view data);

  const ClientOptions& options() const { return options_; }

 private:
  explicit Client(ClientOptions options);
  struct Response {
    long status = 0;
    std::string body;  // the first few KB
  };
  Result<Response> Put(const std::string& bucket, const std::string& key, std::string_view data);
  void* TakeHandle();
  void ReturnHandle(void* handle);

  ClientOptions options_;
  std::mutex mu_;
  std::vector<void*> idle_;  // CURL* handles, guarded by mu_
};

}  // namespace fjord::s3
