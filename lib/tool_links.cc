#include "tool_links.h"

namespace convo {

std::string_view answered_call(const Block& block) {
  return block.type == BlockType::tool_result ? std::string_view(block.id) : std::string_view();
}

std::string_view owning_call(const Message& message) {
  if (message.kind == Kind::turn) {
    return {};
  }
  return message.envelope.tool_use_id;
}

bool same_response(const Message& a, const Message& b) {
  return a.role == Role::assistant && b.role == Role::assistant &&
         !a.envelope.message_id.empty() && a.envelope.message_id == b.envelope.message_id;
}

}  // namespace convo
