# cmake -DIN=FILE -DOUT=FILE.cc -DNAME=symbol -P embed.cmake: writes a C++ file that
# defines `extern const char convo::NAME[]` holding FILE's bytes, NUL-terminated.
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE "${OUT}.tmp" "// Generated from ${IN} by cmake/embed.cmake.\nnamespace convo {\nextern const char ${NAME}[];\nconst char ${NAME}[] = {\n${bytes}0x00};\n}  // namespace convo\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
