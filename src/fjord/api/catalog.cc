// The public Catalog: a thin handle on the filesystem catalog (table/catalog/catalog.h).

#include "fjord/catalog.h"

#include "fjord/table.h"
#include "fjord/table/catalog/catalog.h"
#include "fjord/table/file_store_table.h"

namespace fjord {

Catalog::Catalog(std::unique_ptr<FileSystemCatalog> impl) : impl_(std::move(impl)) {}
Catalog::~Catalog() = default;

Result<std::unique_ptr<Catalog>> Catalog::Open(const std::string& warehouse,
                                               std::map<std::string, std::string> options) {
  FJORD_ASSIGN_OR_RAISE(auto impl, FileSystemCatalog::Open(warehouse, std::move(options)));
  return std::unique_ptr<Catalog>(new Catalog(std::move(impl)));
}

const std::string& Catalog::warehouse() const { return impl_->warehouse(); }
const std::map<std::string, std::string>& Catalog::options() const { return impl_->options(); }
std::string Catalog::DatabasePath(const std::string& database) const {
  return impl_->DatabasePath(database);
}
std::string Catalog::TablePath(const TableIdentifier& id) const { return impl_->TablePath(id); }

Status Catalog::CreateDatabase(const std::string& name, bool ignore_if_exists) {
  return impl_->CreateDatabase(name, ignore_if_exists);
}
Result<std::vector<std::string>> Catalog::ListDatabases() const { return impl_->ListDatabases(); }
Status Catalog::DropDatabase(const std::string& name, bool ignore_if_not_exists, bool cascade) {
  return impl_->DropDatabase(name, ignore_if_not_exists, cascade);
}
Status Catalog::CreateTable(const TableIdentifier& id, const TableSpec& spec,
                            bool ignore_if_exists) {
  return impl_->CreateTable(id, spec, ignore_if_exists);
}
Result<std::vector<std::string>> Catalog::ListTables(const std::string& database) const {
  return impl_->ListTables(database);
}
Status Catalog::DropTable(const TableIdentifier& id, bool ignore_if_not_exists) {
  return impl_->DropTable(id, ignore_if_not_exists);
}
Status Catalog::AlterTable(const TableIdentifier& id, const std::vector<SchemaChange>& changes) {
  return impl_->AlterTable(id, changes);
}
Result<std::unique_ptr<Table>> Catalog::GetTable(const TableIdentifier& id) const {
  FJORD_ASSIGN_OR_RAISE(std::unique_ptr<FileStoreTable> store, impl_->GetTable(id));
  return Table::Open(store->path(), store->io());
}

}  // namespace fjord
