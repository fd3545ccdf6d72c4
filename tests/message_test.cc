#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <string_view>

#include "message.h"

using namespace convo;

TEST_CASE("a data: URL becomes base64 data and back", "[message]") {
  MediaSource source = MediaSource::from_url("data:image/png;base64,iVBORw0KGgo=");
  CHECK(source.type == MediaSource::Type::base64);
  CHECK(source.media_type == "image/png");
  CHECK(source.data == "iVBORw0KGgo=");
  CHECK(source.to_url() == "data:image/png;base64,iVBORw0KGgo=");
}

TEST_CASE("a data: URL read with its record borrows the data, which outlives the message",
          "[message]") {
  auto record = std::make_shared<Source>();
  record->text = "data:image/png;base64,iVBORw0KGgo=";
  std::string_view url = record->text;
  MediaSource source = MediaSource::from_url(url, record);
  CHECK(source.data.borrowed());
  CHECK(source.data.data() == url.data() + 22);  // a view, not a copy
  CHECK(source.data == "iVBORw0KGgo=");
  CHECK(source.to_url() == url);
  std::weak_ptr<const Source> alive = record;
  record.reset();
  MediaSource copy = source;  // copies hold the record too
  source = MediaSource();
  REQUIRE_FALSE(alive.expired());
  CHECK(copy.data == "iVBORw0KGgo=");
  copy.data.release();
  CHECK(alive.expired());
  CHECK(copy.data.empty());
  CHECK_FALSE(copy.data.borrowed());

  MediaSource own = MediaSource::from_url("https://example.com/cat.png");
  CHECK_FALSE(own.data.borrowed());
  MediaSource moved = std::move(own);
  CHECK(moved.data == "https://example.com/cat.png");
  moved.data = std::string("x");
  CHECK(moved.data == "x");
  CHECK(moved.data == MediaBytes(std::string("x")));
}

TEST_CASE("any other URL stays a URL", "[message]") {
  MediaSource source = MediaSource::from_url("https://example.com/cat.png");
  CHECK(source.type == MediaSource::Type::url);
  CHECK(source.to_url() == "https://example.com/cat.png");
}

TEST_CASE("joined_text concatenates text blocks only", "[message]") {
  Content content;
  content.form = Content::Form::blocks;
  content.blocks.push_back(Block::make_text("a"));
  content.blocks.push_back(Block::make_tool_use("t1", "f", "{}"));
  content.blocks.push_back(Block::make_text("b"));
  CHECK(content.joined_text() == "ab");
  CHECK_FALSE(content.empty());
}

TEST_CASE("tool queries find tool_use and tool_result blocks", "[message]") {
  Message message;
  message.content.form = Content::Form::blocks;
  message.content.blocks.push_back(Block::make_tool_use("t1", "f", ""));
  CHECK(message.has_tool_uses());
  CHECK_FALSE(message.has_tool_results());
  REQUIRE(message.tool_uses().size() == 1);
  CHECK(message.tool_uses()[0]->input_json() == "{}");
}

TEST_CASE("role names follow LangChain", "[message]") {
  CHECK(role_name(Role::user) == "human");
  CHECK(role_name(Role::assistant) == "ai");
  CHECK(role_name(Role::tool) == "tool");
}

TEST_CASE("a message holds rare members on the heap", "[message]") {
  // Memory of a conversation held whole is mostly its Messages: issue 15 asks for
  // at most 300 bytes a short record.
  STATIC_REQUIRE(sizeof(Message) <= 320);
  Message m;
  CHECK_FALSE(m.usage.allocated());
  CHECK_FALSE(m.usage->input);
  m.usage = Usage{};  // empty: takes no room
  CHECK_FALSE(m.usage.allocated());
  m.usage.edit().output = 5;
  CHECK(m.usage->output == 5);
  Message copy = m;
  CHECK(copy.usage->output == 5);
  m.name = std::string("bob");
  CHECK(*m.name == "bob");
  m.name = std::string();
  CHECK_FALSE(m.name.allocated());
}
