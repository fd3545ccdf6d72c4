# What `cmake --install` and `cpack -G DEB` put where: the convo binary, its man
# pages and shell completions; libconvo (static), its headers under include/convo/,
# a CMake package (find_package(convo) -> convo::convo_lib) and a pkg-config file
# (libconvo). Included from the top CMakeLists.txt.

# ---------------------------------------------------------------------------
# The command, its man pages, its completions
# ---------------------------------------------------------------------------
install(TARGETS convo RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Compressed, as Debian's policy wants them and man reads them everywhere.
file(GLOB CONVO_MAN_PAGES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/man/*.1)
set(_man_gz)
foreach(page ${CONVO_MAN_PAGES})
  get_filename_component(_name ${page} NAME)
  set(_gz ${CMAKE_CURRENT_BINARY_DIR}/man/${_name}.gz)
  add_custom_command(OUTPUT ${_gz}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/man
    COMMAND gzip -9nc ${page} > ${_gz}
    DEPENDS ${page} VERBATIM)
  list(APPEND _man_gz ${_gz})
endforeach()
add_custom_target(convo_man_pages ALL DEPENDS ${_man_gz})
install(FILES ${_man_gz} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# The completion scripts come from the binary itself (convo completions SHELL), so
# they name exactly the flags it has.
set(_completions ${CMAKE_CURRENT_BINARY_DIR}/completions)
add_custom_command(
  OUTPUT ${_completions}/convo ${_completions}/_convo ${_completions}/convo.fish
  COMMAND ${CMAKE_COMMAND} -E make_directory ${_completions}
  COMMAND convo completions bash > ${_completions}/convo
  COMMAND convo completions zsh > ${_completions}/_convo
  COMMAND convo completions fish > ${_completions}/convo.fish
  DEPENDS convo
  COMMENT "Generating the bash, zsh and fish completions"
  VERBATIM)
add_custom_target(convo_completions ALL
  DEPENDS ${_completions}/convo ${_completions}/_convo ${_completions}/convo.fish)
install(FILES ${_completions}/convo DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${_completions}/_convo DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)
install(FILES ${_completions}/convo.fish DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)

# ---------------------------------------------------------------------------
# libconvo for C++ projects
# ---------------------------------------------------------------------------
install(TARGETS convo_lib EXPORT convoTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/lib/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/convo
        FILES_MATCHING PATTERN "*.h")
install(EXPORT convoTargets NAMESPACE convo::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/convo)
include(CMakePackageConfigHelpers)
configure_package_config_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/convoConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/convoConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/convo)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/convoConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/convoConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/convoConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/convo)
file(RELATIVE_PATH CONVO_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" CONVO_PC_TO_PREFIX "${CONVO_PC_TO_PREFIX}")
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/libconvo.pc.in
               ${CMAKE_CURRENT_BINARY_DIR}/libconvo.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/libconvo.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# ---------------------------------------------------------------------------
# cpack -G DEB: one package, binary stripped
# ---------------------------------------------------------------------------
set(CPACK_PACKAGE_NAME convo)
set(CPACK_PACKAGE_VENDOR "convo")
set(CPACK_PACKAGE_CONTACT "convo maintainers <convo@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "clean, cut, check and convert LLM conversation transcripts (JSONL)")
set(CPACK_PACKAGE_DESCRIPTION
    "convo reads LLM conversation transcripts (Claude Code sessions, Anthropic and OpenAI\n"
    "messages, LangChain, ...) and converts, checks, filters, trims and assembles them.\n"
    "Includes libconvo for C++ projects (find_package(convo), pkg-config libconvo).")
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
# The binary's shared libraries (libfmt, libzstd, libc, ...) from dpkg-shlibdeps;
# the headers need these to compile against.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libfmt-dev, rapidjson-dev, zlib1g-dev, libzstd-dev")
set(CPACK_GENERATOR DEB)
include(CPack)
