// ndn-grid, side by side with experiments/ndnsim-grid3.toml and
// ndnsim-grid32.toml: an n x n grid, one producer of /grid in the middle
// (row and column n/2), a constant-rate consumer on each of the four corners,
// each asking for its own names (/grid/r<row>_<col>/<seq>) so that the
// consumers share no Data, as ndnlab's catalogue consumers over a large
// catalogue do not.
//
//   sbs-grid --n=3 --rate=1000 --duration=10
#include "sbs-common.h"
#include "ns3/point-to-point-layout-module.h"

namespace ns3 {

int
run(int argc, char* argv[])
{
  uint32_t n = 3;
  double rate = 1000;
  double duration = 10;
  double lifetime = 2;
  uint32_t payload = 1024;
  uint32_t cs = 100;
  std::string delay = "10ms";
  std::string bandwidth = "1Gbps";
  CommandLine cmd;
  cmd.AddValue("n", "side of the grid", n);
  cmd.AddValue("rate", "Interests per second of each corner consumer", rate);
  cmd.AddValue("duration", "seconds the consumers send", duration);
  cmd.AddValue("lifetime", "Interest lifetime, seconds", lifetime);
  cmd.AddValue("payload", "Data content bytes", payload);
  cmd.AddValue("cs", "Content Store packets per node", cs);
  cmd.AddValue("delay", "one-way link delay", delay);
  cmd.AddValue("bandwidth", "link rate", bandwidth);
  cmd.Parse(argc, argv);
  NS_ABORT_MSG_IF(n < 2, "--n must be at least 2");

  sbs::linkDefaults();
  PointToPointHelper p2p;
  p2p.SetDeviceAttribute("DataRate", StringValue(bandwidth));
  p2p.SetChannelAttribute("Delay", StringValue(delay));
  sbs::unboundedQueue(p2p);
  PointToPointGridHelper grid(n, n, p2p);

  sbs::installStack(cs);
  ndn::GlobalRoutingHelper routing;
  routing.InstallAll();
  Ptr<Node> middle = grid.GetNode(n / 2, n / 2);
  routing.AddOrigins("/grid", middle);
  ndn::GlobalRoutingHelper::CalculateRoutes();

  ndn::AppHelper producer("ns3::ndn::Producer");
  producer.SetPrefix("/grid");
  producer.SetAttribute("PayloadSize", UintegerValue(payload));
  producer.SetAttribute("Freshness", TimeValue(Seconds(10)));
  producer.Install(middle);

  const uint32_t corners[4][2] = {{0, 0}, {0, n - 1}, {n - 1, 0}, {n - 1, n - 1}};
  for (const auto& rc : corners) {
    ndn::AppHelper consumer("ns3::ndn::ConsumerCbr");
    consumer.SetPrefix("/grid/r" + std::to_string(rc[0]) + "_" + std::to_string(rc[1]));
    consumer.SetAttribute("Frequency", DoubleValue(rate));
    consumer.SetAttribute("LifeTime", TimeValue(Seconds(lifetime)));
    ApplicationContainer c = consumer.Install(grid.GetNode(rc[0], rc[1]));
    c.Start(Seconds(0));
    c.Stop(Seconds(duration));
    sbs::watchConsumers(c);
  }

  sbs::runAndReport("grid" + std::to_string(n), duration + lifetime + 1);
  return 0;
}

} // namespace ns3

int
main(int argc, char* argv[])
{
  return ns3::run(argc, argv);
}
