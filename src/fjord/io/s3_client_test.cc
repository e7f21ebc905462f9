// Signature Version 4 against the worked example of AWS's S3 documentation ("GET Object" in
// "Signature Calculations for the Authorization Header: Transferring Payload in a Single Chunk").
// The end-to-end check, with a store that verifies signatures, is io.s3_moto_auth.
#include "fjord/io/s3_client.h"

#include "fjord/testing/test_util.h"

namespace fjord::s3 {
namespace {

constexpr char kEmptySha256[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

SignedRequest AwsExample() {
  SignedRequest req;
  req.method = "GET";
  req.canonical_uri = "/test.txt";
  req.headers = {{"x-amz-date", "20130524T000000Z"},
                 {"range", "bytes=0-9"},
                 {"host", "examplebucket.s3.amazonaws.com"},
                 {"x-amz-content-sha256", kEmptySha256}};
  req.payload_sha256 = kEmptySha256;
  return req;
}

TEST(SigV4Test, Sha256) {
  EXPECT_EQ(Sha256Hex(""), kEmptySha256);
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(SigV4Test, AwsDocumentationExample) {
  SignedRequest req = AwsExample();
  EXPECT_EQ(CanonicalRequest(req),
            "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"
            "x-amz-content-sha256:" +
                std::string(kEmptySha256) + "\nx-amz-date:20130524T000000Z\n\n" +
                "host;range;x-amz-content-sha256;x-amz-date\n" + kEmptySha256);
  EXPECT_EQ(StringToSign(req, "20130524T000000Z", "us-east-1", "s3"),
            "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
            "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  Credentials creds{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""};
  EXPECT_EQ(AuthorizationHeader(req, creds, "20130524T000000Z", "us-east-1", "s3"),
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/"
            "aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(SigV4Test, UriEncodeAndDate) {
  EXPECT_EQ(UriEncode("db.db/t/snapshot/snapshot-1", true), "db.db/t/snapshot/snapshot-1");
  EXPECT_EQ(UriEncode("a b/c~d_e+f=g", true), "a%20b/c~d_e%2Bf%3Dg");
  EXPECT_EQ(UriEncode("a/b", false), "a%2Fb");
  EXPECT_EQ(UriEncode("\xc3\xa9", true), "%C3%A9");
  EXPECT_EQ(AmzDate(std::chrono::system_clock::from_time_t(1369353600)), "20130524T000000Z");
}

TEST(S3ClientTest, UnreachableStoreIsAnIOError) {
  ClientOptions options;
  options.scheme = "http";
  options.endpoint = "127.0.0.1:1";  // nothing listens on port 1
  ASSERT_OK_AND_ASSIGN(auto client, Client::Make(options));
  EXPECT_THAT(client->PutIfAbsent("b", "k", "x"),
              IsError(StatusCode::kIOError, "failed in transit (outcome unknown)"));
  options.scheme = "ftp";
  EXPECT_THAT(Client::Make(options), HasStatusCode(StatusCode::kInvalid));
}

}  // namespace
}  // namespace fjord::s3
