#include "fjord/io/s3_client.h"

#include <curl/curl.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <ctime>
#include <random>
#include <thread>

#include "fjord/common/strings.h"

namespace fjord::s3 {

namespace {

constexpr size_t kMaxResponseBody = 4096;

std::string Hex(const unsigned char* data, size_t n) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out(2 * n, '\0');
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] = kDigits[data[i] >> 4];
    out[2 * i + 1] = kDigits[data[i] & 0xf];
  }
  return out;
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len);
  return std::string(reinterpret_cast<const char*>(out), len);
}

std::vector<std::pair<std::string, std::string>> SortedHeaders(const SignedRequest& req) {
  auto headers = req.headers;
  std::sort(headers.begin(), headers.end());
  return headers;
}

std::string SignedHeaderList(const std::vector<std::pair<std::string, std::string>>& sorted) {
  std::string out;
  for (const auto& [name, value] : sorted) {
    if (!out.empty()) out += ';';
    out += name;
  }
  return out;
}

// One line of the store's answer: the XML error's Code and Message when present, else the start
// of the body.
std::string Excerpt(const std::string& body) {
  auto element = [&](const std::string& tag) -> std::string {
    size_t b = body.find("<" + tag + ">");
    if (b == std::string::npos) return "";
    b += tag.size() + 2;
    size_t e = body.find("</" + tag + ">", b);
    return e == std::string::npos ? "" : body.substr(b, e - b);
  };
  std::string code = element("Code"), message = element("Message");
  std::string out = code.empty() ? body.substr(0, 300) : code + ": " + message;
  std::replace(out.begin(), out.end(), '\n', ' ');
  std::replace(out.begin(), out.end(), '\r', ' ');
  return out.empty() ? "(empty body)" : out;
}

size_t ReadBody(char* buffer, size_t size, size_t nitems, void* userdata) {
  auto* rest = static_cast<std::string_view*>(userdata);
  size_t n = std::min(size * nitems, rest->size());
  std::copy_n(rest->data(), n, buffer);
  rest->remove_prefix(n);
  return n;
}

size_t WriteBody(char* data, size_t size, size_t nmemb, void* userdata) {
  auto* body = static_cast<std::string*>(userdata);
  size_t n = size * nmemb;
  if (body->size() < kMaxResponseBody) {
    body->append(data, std::min(n, kMaxResponseBody - body->size()));
  }
  return n;
}

std::once_flag curl_once;
CURLcode curl_init_code = CURLE_OK;

}  // namespace

std::string Sha256Hex(std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out, &len, EVP_sha256(), nullptr);
  return Hex(out, len);
}

std::string UriEncode(std::string_view s, bool keep_slash) {
  static const char kDigits[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.' || c == '~';
    if (unreserved || (keep_slash && c == '/')) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kDigits[c >> 4];
      out += kDigits[c & 0xf];
    }
  }
  return out;
}

std::string AmzDate(std::chrono::system_clock::time_point t) {
  std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

std::string CanonicalRequest(const SignedRequest& req) {
  auto sorted = SortedHeaders(req);
  std::string out = req.method + "\n" + req.canonical_uri + "\n" + req.canonical_query + "\n";
  for (const auto& [name, value] : sorted)
    out += name + ":" + std::string(Trim(value, " \t")) + "\n";
  out += "\n" + SignedHeaderList(sorted) + "\n" + req.payload_sha256;
  return out;
}

std::string StringToSign(const SignedRequest& req, const std::string& amz_date,
                         const std::string& region, const std::string& service) {
  std::string scope = amz_date.substr(0, 8) + "/" + region + "/" + service + "/aws4_request";
  return "AWS4-HMAC-SHA256\n" + amz_date + "\n" + scope + "\n" + Sha256Hex(CanonicalRequest(req));
}

std::string AuthorizationHeader(const SignedRequest& req, const Credentials& creds,
                                const std::string& amz_date, const std::string& region,
                                const std::string& service) {
  std::string date = amz_date.substr(0, 8);
  std::string key = HmacSha256("AWS4" + creds.secret_key, date);
  key = HmacSha256(key, region);
  key = HmacSha256(key, service);
  key = HmacSha256(key, "aws4_request");
  std::string signature = HmacSha256(key, StringToSign(req, amz_date, region, service));
  return "AWS4-HMAC-SHA256 Credential=" + creds.access_key + "/" + date + "/" + region + "/" +
         service + "/aws4_request,SignedHeaders=" + SignedHeaderList(SortedHeaders(req)) +
         ",Signature=" +
         Hex(reinterpret_cast<const unsigned char*>(signature.data()), signature.size());
}

Client::Client(ClientOptions options) : options_(std::move(options)) {}

Client::~Client() {
  for (void* h : idle_) curl_easy_cleanup(static_cast<CURL*>(h));
}

Result<std::unique_ptr<Client>> Client::Make(ClientOptions options) {
  std::call_once(curl_once, [] { curl_init_code = curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (curl_init_code != CURLE_OK) {
    return Status::IOError("S3 client: curl_global_init failed: ",
                           curl_easy_strerror(curl_init_code));
  }
  if (options.scheme != "http" && options.scheme != "https") {
    return Status::Invalid("S3 client: unsupported scheme '", options.scheme, "'");
  }
  if (options.region.empty()) options.region = "us-east-1";
  if (!options.credentials) options.credentials = [] { return Credentials{}; };
  return std::unique_ptr<Client>(new Client(std::move(options)));
}

void* Client::TakeHandle() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      void* h = idle_.back();
      idle_.pop_back();
      curl_easy_reset(static_cast<CURL*>(h));  // keeps the connection cache
      return h;
    }
  }
  return curl_easy_init();
}

void Client::ReturnHandle(void* handle) {
  std::lock_guard<std::mutex> lock(mu_);
  idle_.push_back(handle);
}

Result<Client::Response> Client::Put(const std::string& bucket, const std::string& key,
                                     std::string_view data) {
  std::string endpoint = options_.endpoint;
  if (endpoint.empty()) endpoint = "s3." + options_.region + ".amazonaws.com";
  // A dotted bucket name in the host would not match the store's TLS certificate.
  bool virtual_host = options_.virtual_addressing &&
                      !(options_.scheme == "https" && bucket.find('.') != std::string::npos);
  std::string host = virtual_host ? bucket + "." + endpoint : endpoint;
  std::string path = "/" + (virtual_host ? "" : UriEncode(bucket, false) + "/") +
                     UriEncode(key, /*keep_slash=*/true);
  std::string url = options_.scheme + "://" + host + path;

  Credentials creds = options_.credentials();
  std::string amz_date = AmzDate(std::chrono::system_clock::now());
  SignedRequest req;
  req.method = "PUT";
  req.canonical_uri = path;
  req.payload_sha256 = Sha256Hex(data);
  req.headers = {{"host", host},
                 {"if-none-match", "*"},
                 {"x-amz-content-sha256", req.payload_sha256},
                 {"x-amz-date", amz_date}};
  if (!creds.session_token.empty())
    req.headers.emplace_back("x-amz-security-token", creds.session_token);

  curl_slist* headers = nullptr;
  for (const auto& [name, value] : req.headers) {
    headers = curl_slist_append(headers, (name + ": " + value).c_str());
  }
  if (!creds.access_key.empty()) {
    std::string auth = AuthorizationHeader(req, creds, amz_date, options_.region, "s3");
    headers = curl_slist_append(headers, ("Authorization: " + auth).c_str());
  }
  headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip
  headers = curl_slist_append(headers, "Content-Type: application/octet-stream");

  CURL* curl = static_cast<CURL*>(TakeHandle());
  if (curl == nullptr) {
    curl_slist_free_all(headers);
    return Status::IOError("S3 client: curl_easy_init failed");
  }
  std::string_view rest = data;
  Response response;
  char error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
  curl_easy_setopt(curl, CURLOPT_READFUNCTION, &ReadBody);
  curl_easy_setopt(curl, CURLOPT_READDATA, &rest);
  curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(data.size()));
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &WriteBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  // As Arrow's S3 client: no proxy from http_proxy/https_proxy unless configured (it is not).
  curl_easy_setopt(curl, CURLOPT_PROXY, "");
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
  // Give up on a connection that moved less than 1 byte/s for a minute.
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, 60L);
  CURLcode code = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
  curl_slist_free_all(headers);
  if (code != CURLE_OK) {
    curl_easy_cleanup(curl);  // the connection may be in any state
    return Status::IOError("PUT ", url, " failed in transit (outcome unknown): ",
                           error[0] ? error : curl_easy_strerror(code));
  }
  ReturnHandle(curl);
  return response;
}

Status Client::PutIfAbsent(const std::string& bucket, const std::string& key,
                           std::string_view data) {
  const std::string what = "s3://" + bucket + "/" + key;
  std::mt19937 rng(std::random_device{}());
  for (int attempt = 0;; ++attempt) {
    FJORD_ASSIGN_OR_RAISE(Response r, Put(bucket, key, data));
    if (r.status >= 200 && r.status < 300) return Status::OK();
    if (r.status == 412) return Status::AlreadyExists(what, ": already exists");
    if (r.status == 409 && attempt < options_.conflict_retries) {
      // ConditionalRequestConflict: another conditional write of this key is in flight.
      int base = 20 << attempt;
      std::this_thread::sleep_for(
          std::chrono::milliseconds(base + std::uniform_int_distribution<int>(0, base)(rng)));
      continue;
    }
    std::string hint;
    if (r.status == 501 || (r.status == 400 && r.body.find("If-None-Match") != std::string::npos)) {
      hint = " (the store does not support conditional puts: set fjord.s3.create-if-absent = lock)";
    }
    return Status::IOError(what, ": conditional put (If-None-Match: *) failed: HTTP ", r.status,
                           r.status >= 500 ? " (outcome unknown)" : "", ": ", Excerpt(r.body),
                           hint);
  }
}

}  // namespace fjord::s3
