// lib/tool_links, which trim, normalize-for-api and check build on: tool calls with
// their results, API responses split over records, atomic units, on every
// conversation of the input.
#include "conversation.h"
#include "fuzz.h"
#include "tool_links.h"

CONVO_FUZZ_STAGE([] {
  return std::make_unique<convo::ConversationStage>([](std::vector<convo::Message> conversation) {
    convo::link_tools(conversation);
    convo::response_starts(conversation);
    convo::atomic_units(conversation);
    return conversation;
  });
})
