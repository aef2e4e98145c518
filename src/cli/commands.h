// One Register function per command, each in its own cmd_<name>.cc. Each
// adds its subcommand, flags and help text to the app and runs through
// cli/context.h.
#ifndef SEALVOL_CLI_COMMANDS_H_
#define SEALVOL_CLI_COMMANDS_H_

#include <CLI/CLI.hpp>

#include "cli/context.h"

namespace sealvol::cli {

void RegisterPublish(CLI::App& app, Globals& g);
void RegisterSync(CLI::App& app, Globals& g);
void RegisterSyncJobs(CLI::App& app, Globals& g);
void RegisterDigest(CLI::App& app, Globals& g);
void RegisterResolve(CLI::App& app, Globals& g);
void RegisterLs(CLI::App& app, Globals& g);
void RegisterCat(CLI::App& app, Globals& g);
void RegisterVersions(CLI::App& app, Globals& g);
void RegisterVolumes(CLI::App& app, Globals& g);
void RegisterTags(CLI::App& app, Globals& g);
void RegisterTag(CLI::App& app, Globals& g);
void RegisterUntag(CLI::App& app, Globals& g);
void RegisterHistory(CLI::App& app, Globals& g);
void RegisterDiff(CLI::App& app, Globals& g);
void RegisterPull(CLI::App& app, Globals& g);
void RegisterVerify(CLI::App& app, Globals& g);
void RegisterGc(CLI::App& app, Globals& g);
void RegisterMount(CLI::App& app, Globals& g);
void RegisterUmount(CLI::App& app, Globals& g);
void RegisterStats(CLI::App& app, Globals& g);
void RegisterServe(CLI::App& app, Globals& g);
void RegisterCopy(CLI::App& app, Globals& g);
void RegisterLock(CLI::App& app, Globals& g);
void RegisterUp(CLI::App& app, Globals& g);
void RegisterDown(CLI::App& app, Globals& g);
void RegisterStatus(CLI::App& app, Globals& g);
void RegisterRollback(CLI::App& app, Globals& g);

// The statistics of the live sealvol mount at `mountpoint` (read from the
// daemon through an extended attribute; cmd_umount.cc). InvalidArgument
// when nothing of sealvol's is mounted there.
Result<nlohmann::json> ReadMountStats(const std::string& mountpoint);

}  // namespace sealvol::cli

#endif  // SEALVOL_CLI_COMMANDS_H_
