// One contender of the multi-process create-if-absent race in s3_file_io_test.cc:
//
//   fjord_s3_create_if_absent ENDPOINT MODE LOCK_DIR PATH CONTENT
//
// Opens the S3 FileIO with fjord.s3.create-if-absent = MODE, prints "ready", waits until its
// standard input is closed (the start signal shared by all contenders), calls CreateIfAbsent
// and prints "won", "exists" or "error <message>". Exit code 0 unless the FileIO cannot open.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "fjord/file_io.h"

int main(int argc, char** argv) {
  if (argc != 6) {
    std::cerr << "usage: " << argv[0] << " ENDPOINT MODE LOCK_DIR PATH CONTENT\n";
    return 2;
  }
  // The keys of tests/s3/with_moto.sh (FJORD_TEST_S3_AUTH=1 makes real ones).
  const char* access = std::getenv("FJORD_TEST_S3_ACCESS_KEY");
  const char* secret = std::getenv("FJORD_TEST_S3_SECRET_KEY");
  std::map<std::string, std::string> options = {{"s3.endpoint", argv[1]},
                                                {"s3.access-key", access ? access : "testing"},
                                                {"s3.secret-key", secret ? secret : "testing"},
                                                {"s3.region", "us-east-1"},
                                                {"s3.path-style-access", "true"},
                                                {"fjord.s3.create-if-absent", argv[2]},
                                                {"fjord.s3.lock-dir", argv[3]}};
  int code = 0;
  {
    auto io = fjord::FileIO::Open(argv[4], options);
    if (!io.ok()) {
      std::cout << "error " << io.status().ToString() << std::endl;
      code = 1;
    } else {
      std::cout << "ready" << std::endl;
      char buf[64];
      while (std::fread(buf, 1, sizeof(buf), stdin) > 0) {
      }
      fjord::Status st = (*io)->CreateIfAbsent(argv[4], argv[5]);
      if (st.ok()) {
        std::cout << "won" << std::endl;
      } else if (st.code() == fjord::StatusCode::kAlreadyExists) {
        std::cout << "exists" << std::endl;
      } else {
        std::cout << "error " << st.ToString() << std::endl;
      }
    }
  }
  fjord::FileIO::ShutdownFileSystems();
  return code;
}
