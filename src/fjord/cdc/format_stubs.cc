// Formats not written yet: MakeCdcFormat refuses them (replaced by one unit per format).
#include "fjord/cdc/cdc_format.h"

namespace fjord::cdc {

std::unique_ptr<CdcFormat> MakeCanalJsonFormat(const TypeMapping&) { return nullptr; }
std::unique_ptr<CdcFormat> MakeMaxwellJsonFormat(const TypeMapping&) { return nullptr; }
std::unique_ptr<CdcFormat> MakeOggJsonFormat(const TypeMapping&) { return nullptr; }
std::unique_ptr<CdcFormat> MakeJsonFormat(const TypeMapping&) { return nullptr; }

}  // namespace fjord::cdc
