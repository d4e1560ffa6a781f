// SPDX-License-Identifier: GPL-3.0-or-later
#include "completion_command.h"

#include <iostream>
#include <set>
#include <sstream>
#include <vector>

#include "completion_hints.h"
#include "engine_handoff.h"

namespace accumlab::cli {

namespace {

/// Options whose value is a path, by long name, where no validator says so (--config's
/// ExistingFile does: its type reads TEXT:FILE).
const std::set<std::string> kPathOptions = {"db", "out", "token-file", "config"};
/// Positionals that take stored run ids (show, compare, export, note, tag, delete, report).
const std::set<std::string> kRunIdPositionals = {"id", "ids"};

/// What a value completes to, as the script's helper reads it: "words W…", "list W…" (comma
/// separated), "files", "runs", or "text" (nothing to offer).
std::string valueKind(const CLI::Option& opt, const std::string& path) {
  if (const ValueHint* hint = valueHint(&opt)) {
    std::string kind = hint->comma_list ? "list" : "words";
    for (const std::string& w : hint->words) kind += " " + w;
    return kind;
  }
  if (opt.get_positional()) {
    const std::string name = opt.get_name(true);
    if (kRunIdPositionals.count(name) > 0) return "runs";
    return name == "text" ? "text" : "files";
  }
  if (opt.get_type_name().find("FILE") != std::string::npos) return "files";
  for (const std::string& l : opt.get_lnames()) {
    if (kPathOptions.count(l) > 0) return "files";
    if (l == "resume" && path == "run") return "runs";  // sweep --resume takes a sweep id
  }
  return "text";
}

/// The names of an option as typed: --long and -s.
std::vector<std::string> names(const CLI::Option& opt) {
  std::vector<std::string> all;
  for (const std::string& l : opt.get_lnames()) all.push_back("--" + l);
  for (const std::string& s : opt.get_snames()) all.push_back("-" + s);
  return all;
}

bool hidden(const CLI::Option& opt) { return opt.get_group().empty(); }

/// A single-quoted bash word.
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct Node {
  std::string path;  ///< "" for accumlab-cli itself, "lesson run" below it
  const CLI::App* app;
};

void collect(const CLI::App& app, const std::string& path, std::vector<Node>& nodes) {
  nodes.push_back({path, &app});
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* a) {
         return !a->get_group().empty();  // hidden ones are left out
       })) {
    collect(*sub, path.empty() ? sub->get_name() : path + " " + sub->get_name(), nodes);
  }
}

// The part of the script that does not depend on the options: it finds the command path and
// the option a value is for in the line before the cursor, and offers words, files or runs.
constexpr const char* kDriver = R"BASH(
# Stored run ids: `accumlab-cli list --json` on the store the line names with --db.
_accumlab_cli_run_ids() {
  local db=() i
  for ((i = 1; i < ${#_accumlab_words[@]} - 1; i++)); do
    [[ ${_accumlab_words[i]} == --db ]] && db=(--db "${_accumlab_words[i + 1]}")
    [[ ${_accumlab_words[i]} == --db=* ]] && db=(--db "${_accumlab_words[i]#--db=}")
  done
  "${_accumlab_words[0]}" list --json --limit 0 "${db[@]}" 2>/dev/null |
    sed -n 's/^    "id": \([0-9]*\),\{0,1\}$/\1/p'
}

# COMPREPLY for a value of kind $1 ("words W…", "list W…", files, runs, text) after $2.
_accumlab_cli_values() {
  local kind=${1%% *} cur=$2 head="" w
  local -a choices
  read -ra choices <<<"${1#"$kind"}"
  case $kind in
    words)
      COMPREPLY=($(compgen -W "${choices[*]}" -- "$cur")) ;;
    list)
      [[ $cur == *,* ]] && head=${cur%,*},
      COMPREPLY=()
      for w in $(compgen -W "${choices[*]}" -- "${cur##*,}"); do COMPREPLY+=("$head$w"); done
      compopt -o nospace 2>/dev/null ;;
    files)
      COMPREPLY=($(compgen -f -- "$cur"))
      compopt -o filenames 2>/dev/null ;;
    runs)
      COMPREPLY=($(compgen -W "$(_accumlab_cli_run_ids)" -- "$cur")) ;;
    *)
      COMPREPLY=() ;;
  esac
  if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *: ]]; then
    compopt -o nospace 2>/dev/null
  fi
}

_accumlab_cli() {
  local line=${COMP_LINE:0:COMP_POINT} path="" expect="" i w cur opt="" prefix=""
  local -a _accumlab_words
  read -ra _accumlab_words <<<"$line"
  [[ ${#_accumlab_words[@]} -eq 0 || $line == *[[:space:]] ]] && _accumlab_words+=("")
  local last=$((${#_accumlab_words[@]} - 1))
  cur=${_accumlab_words[last]}
  for ((i = 1; i < last; i++)); do
    w=${_accumlab_words[i]}
    if [[ -n $expect ]]; then
      expect=""
    elif [[ $w == -* ]]; then
      [[ $w != *=* && -n $(_accumlab_cli_value "$path" "$w") ]] && expect=$w
    elif [[ " $(_accumlab_cli_subcommands "$path") " == *" $w "* ]]; then
      path=${path:+$path }$w
    fi
  done
  if [[ -n $expect ]]; then
    opt=$expect
  elif [[ $cur == -*=* ]]; then
    opt=${cur%%=*} prefix=${cur%%=*}= cur=${cur#*=}
  fi
  if [[ -n $opt ]]; then
    _accumlab_cli_values "$(_accumlab_cli_value "$path" "$opt")" "$cur"
    [[ -n $prefix ]] && COMPREPLY=("${COMPREPLY[@]/#/$prefix}")
  elif [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(_accumlab_cli_options "$path")" -- "$cur"))
  elif [[ -n $(_accumlab_cli_subcommands "$path") ]]; then
    COMPREPLY=($(compgen -W "$(_accumlab_cli_subcommands "$path")" -- "$cur"))
  else
    _accumlab_cli_values "$(_accumlab_cli_positional "$path")" "$cur"
  fi
  # Readline completes only the part after the last ':' or '=' (COMP_WORDBREAKS).
  local typed=$prefix$cur cut=""
  [[ $COMP_WORDBREAKS == *:* && $typed == *:* ]] && cut=${typed%:*}:
  if [[ $COMP_WORDBREAKS == *=* && $typed == *=* && ${#typed%=*} -ge ${#cut} ]]; then
    cut=${typed%=*}=
  fi
  [[ -n $cut ]] && COMPREPLY=("${COMPREPLY[@]#"$cut"}")
  return 0
}
complete -F _accumlab_cli accumlab-cli
)BASH";

}  // namespace

std::string bashCompletion(const CLI::App& root) {
  std::vector<Node> nodes;
  collect(root, "", nodes);
  std::ostringstream subs, opts, values, positionals;
  for (const Node& node : nodes) {
    std::string sub_list, opt_list;
    for (const CLI::App* sub :
         node.app->get_subcommands([](const CLI::App* a) { return !a->get_group().empty(); })) {
      sub_list += (sub_list.empty() ? "" : " ") + sub->get_name();
    }
    for (const CLI::Option* opt : node.app->get_options()) {
      if (hidden(*opt)) continue;
      if (opt->get_positional()) {
        positionals << "    " << quoted(node.path) << ") echo "
                    << quoted(valueKind(*opt, node.path)) << " ;;\n";
        continue;
      }
      std::string patterns;
      for (const std::string& n : names(*opt)) {
        opt_list += (opt_list.empty() ? "" : " ") + n;
        patterns += (patterns.empty() ? "" : "|") + quoted(node.path + " " + n);
      }
      if (opt->get_expected_max() != 0 && !patterns.empty()) {  // not a flag
        values << "    " << patterns << ") echo " << quoted(valueKind(*opt, node.path)) << " ;;\n";
      }
    }
    if (!sub_list.empty())
      subs << "    " << quoted(node.path) << ") echo " << quoted(sub_list) << " ;;\n";
    opts << "    " << quoted(node.path) << ") echo " << quoted(opt_list) << " ;;\n";
  }
  std::ostringstream out;
  out << "# bash completion for accumlab-cli. Written by `accumlab-cli completion bash` from the\n"
         "# program's own option table: regenerate it, do not edit it.\n\n"
         "# The subcommands below the command path $1 (\"\" for accumlab-cli, \"lesson\", …).\n"
         "_accumlab_cli_subcommands() {\n  case $1 in\n"
      << subs.str()
      << "  esac\n}\n\n# The options of the command path $1.\n"
         "_accumlab_cli_options() {\n  case $1 in\n"
      << opts.str()
      << "  esac\n}\n\n"
         "# What the value of option $2 of the command path $1 completes to; nothing for a flag.\n"
         "_accumlab_cli_value() {\n  case \"$1 $2\" in\n"
      << values.str()
      << "  esac\n}\n\n# What the command path $1 takes after its options.\n"
         "_accumlab_cli_positional() {\n  case $1 in\n"
      << positionals.str() << "    *) echo files ;;\n  esac\n}\n"
      << kDriver;
  return out.str();
}

CompletionCommand::CompletionCommand(CLI::App& parent)
    : root_(&parent), app_(parent.add_subcommand("completion", kCompletionAbout)) {
  completeWith(app_->add_option("shell", shell_, "The shell: bash")
                   ->required()
                   ->check(CLI::IsMember({"bash"})),
               {{"bash"}});
}

int CompletionCommand::execute() const {
  std::cout << bashCompletion(*root_);
  return 0;
}

}  // namespace accumlab::cli
