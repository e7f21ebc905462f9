// libfjord.so is made of the layer libraries linked whole (src/fjord/CMakeLists.txt); this unit
// only gives the target a source of its own.
#include "fjord/version.h"
