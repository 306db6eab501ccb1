// TemporaryFolder: a folder of its own under the system's temporary directory for a test's
// files, removed with everything in it when the object goes.

#ifndef PERFHIVE_TESTS_SUPPORT_TEMPORARY_FOLDER_H_
#define PERFHIVE_TESTS_SUPPORT_TEMPORARY_FOLDER_H_

#include <stdlib.h>

#include <filesystem>
#include <string>

namespace perfhive::testing {

class TemporaryFolder {
 public:
  // Named `prefix`, a dash and six random characters.
  explicit TemporaryFolder(const std::string& prefix) {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    path_ = mkdtemp(pattern.data());
  }
  ~TemporaryFolder() { std::filesystem::remove_all(path_); }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_SUPPORT_TEMPORARY_FOLDER_H_
