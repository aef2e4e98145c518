// The little XML the object stores answer with (S3 ListObjectsV2, Azure
// List Blobs, their error bodies): flat elements found by name, and text
// with the predefined entities and numeric references decoded. Not a
// general XML parser: no attributes, namespaces or CDATA.
//
// Thread safety: reentrant functions.
#ifndef SEALVOL_SOURCES_XML_H_
#define SEALVOL_SOURCES_XML_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sealvol {

// Text with &amp; &lt; &gt; &quot; &apos; and &#N; / &#xN; decoded;
// nullopt on a malformed reference.
std::optional<std::string> XmlText(std::string_view s);

// The raw content of the first <tag>…</tag> in `s`, nullopt when absent.
std::optional<std::string_view> XmlElement(std::string_view s,
                                           std::string_view tag);

// The raw contents of every <tag>…</tag> in `s`, in order; nullopt when
// one is not closed.
std::optional<std::vector<std::string_view>> XmlElements(std::string_view s,
                                                         std::string_view tag);

}  // namespace sealvol

#endif  // SEALVOL_SOURCES_XML_H_
