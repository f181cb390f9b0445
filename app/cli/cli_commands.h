// Each subcommand registers itself on the CLI11 app and sets `action`.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace collviz {

void addRunCommand(CLI::App& app, std::function<int()>& action);
void addDevicesCommand(CLI::App& app, std::function<int()>& action);
void addBenchCommand(CLI::App& app, std::function<int()>& action);
void addExportCommand(CLI::App& app, std::function<int()>& action);
void addAlgosCommand(CLI::App& app, std::function<int()>& action);
struct WindowRequest;
void addNcclLogCommand(CLI::App& app, std::function<int()>& action, WindowRequest* window);
// collviz job FILE|DIR...: a real job's traces (cli_job.cpp).
void addJobCommand(CLI::App& app, std::function<int()>& action, WindowRequest* window);
// collviz watch [options] -- mpirun ...: an Open MPI program watched live
// through the tap; collviz tap-path: where the tap is (cli_watch.cpp).
void addWatchCommand(CLI::App& app, std::function<int()>& action, WindowRequest* window);
void addTapPathCommand(CLI::App& app, std::function<int()>& action);
struct WindowRequest;
void addLectureCommand(CLI::App& app, std::function<int()>& action, WindowRequest* window);
namespace nccl_log {
struct Log;
}
// What collviz nccl-log prints of each communicator (collviz run on NCCL:
// the one its ranks built).
void printNcclComms(const nccl_log::Log& log);

}  // namespace collviz
