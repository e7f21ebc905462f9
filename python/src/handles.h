// The objects the module hands to Python: shared handles on Fjord's API objects, so that a Python
// object may outlive the one that made it (a write outliving its table, ...).
#pragma once

#include <memory>
#include <string>

#include "fjord/catalog.h"
#include "fjord/table.h"

namespace fjord::python {

struct PyCatalog {
  std::shared_ptr<Catalog> catalog;
};

struct PyTable {
  std::shared_ptr<Table> table;
};

struct PyWrite {
  std::shared_ptr<const Table> table;  // keeps the table's files alive as the write does
  std::unique_ptr<TableWrite> write;
};

struct PyCommit {
  std::unique_ptr<TableCommit> commit;
};

}  // namespace fjord::python
