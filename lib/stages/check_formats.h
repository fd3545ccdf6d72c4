// The reports of `convo check` that CI systems read: GitHub workflow command
// annotations (one line per problem), SARIF 2.1.0 (code scanning) and JUnit XML
// (GitLab, Jenkins). The last two are one document for the whole run, written
// once every input has been checked.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "stages/check.h"

namespace convo {

// One input's problems, as reported (after --select/--ignore).
struct FileReport {
  std::string file;
  std::vector<Problem> problems;
};

// `::error file=F,line=L,title=RULE::message`, escaped as GitHub documents: %, CR
// and LF everywhere, and ':' and ',' in the properties too.
std::string github_annotation(const Problem& problem, std::string_view level);

// A SARIF 2.1.0 log: one run of tool `convo` (driver rules from check_rules()), a
// result per problem, its level from the rule's severity.
std::string sarif_report(const std::vector<FileReport>& files, std::string_view version);

// A JUnit XML report: one test suite, one test case per input file, one failure
// per problem.
std::string junit_report(const std::vector<FileReport>& files);

}  // namespace convo
