// Library version string (keeps rx_algorithms non-empty while passes are added).
namespace rx {
const char* libraryVersion() { return "0.1"; }
}  // namespace rx
