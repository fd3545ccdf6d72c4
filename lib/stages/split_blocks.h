// split-blocks: Claude Code's normalizeMessages, the view its UI renders: one record
// per content block, each with an id of its own derived from its record's. A
// streaming stage.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>

#include "pipeline.h"

namespace convo {

// Claude Code's deriveUUID: the first 24 characters of `uuid` (its first four groups
// and their dashes) followed by `index` as 12 hex digits, so that block `index` of
// a record gets an id that is stable and still looks like a UUID.
std::string derive_uuid(std::string_view uuid, std::size_t index);

// Claude Code's deriveShortMessageId: the first 10 hex digits of `uuid` (dashes
// skipped) read as a number and written in base 36, first 6 characters. "NaN" when
// `uuid` does not start with a hex digit, as in Claude Code. Every block of a record
// has its record's short id, since `derive_uuid` keeps those digits.
std::string derive_short_message_id(std::string_view uuid);

// Splits each conversation turn into one message per content block (a string content
// becomes one text block). Once a turn with more than one block has been split,
// every later turn's uuid is derived too (block 0 for single-block turns), so that
// no two records share one; records that are not turns keep theirs. A renamed
// record's children have their parentUuid (and compact boundaries their
// logicalParentUuid) follow it: the first block takes the record's parent, each
// further block the block before it. Split turns with a uuid get `short_id`.
// Turns with no blocks pass unchanged. Memory: the ids of renamed records.
class SplitBlocks final : public StreamStage {
 public:
  void push(Message&& message, MessageSink& next) override;

 private:
  void follow_renames(Message& message) const;

  bool m_new_chain = false;
  std::unordered_map<std::string, std::string> m_renamed;  // uuid -> uuid of its last block
};

}  // namespace convo
