// ndn-simple, side by side with experiments/ndnsim-simple.toml: three nodes in
// a line (consumer, router, producer), a constant-rate consumer asking for
// ever new names, a producer of 1024-byte Data.
//
//   sbs-simple --rate=10 --duration=10
#include "sbs-common.h"

namespace ns3 {

int
run(int argc, char* argv[])
{
  double rate = 10;
  double duration = 10;
  double lifetime = 2;
  uint32_t payload = 1024;
  uint32_t cs = 100;
  std::string delay = "10ms";
  std::string bandwidth = "10Gbps";
  CommandLine cmd;
  cmd.AddValue("rate", "Interests per second", rate);
  cmd.AddValue("duration", "seconds the consumer sends", duration);
  cmd.AddValue("lifetime", "Interest lifetime, seconds", lifetime);
  cmd.AddValue("payload", "Data content bytes", payload);
  cmd.AddValue("cs", "Content Store packets per node", cs);
  cmd.AddValue("delay", "one-way link delay", delay);
  cmd.AddValue("bandwidth", "link rate", bandwidth);
  cmd.Parse(argc, argv);

  sbs::linkDefaults();
  NodeContainer nodes;
  nodes.Create(3);
  PointToPointHelper p2p;
  p2p.SetDeviceAttribute("DataRate", StringValue(bandwidth));
  p2p.SetChannelAttribute("Delay", StringValue(delay));
  sbs::unboundedQueue(p2p);
  p2p.Install(nodes.Get(0), nodes.Get(1));
  p2p.Install(nodes.Get(1), nodes.Get(2));

  sbs::installStack(cs);
  ndn::GlobalRoutingHelper routing;
  routing.InstallAll();
  routing.AddOrigins("/prefix", nodes.Get(2));
  ndn::GlobalRoutingHelper::CalculateRoutes();

  ndn::AppHelper consumer("ns3::ndn::ConsumerCbr");
  consumer.SetPrefix("/prefix");
  consumer.SetAttribute("Frequency", DoubleValue(rate));
  consumer.SetAttribute("LifeTime", TimeValue(Seconds(lifetime)));
  ApplicationContainer c = consumer.Install(nodes.Get(0));
  c.Start(Seconds(0));
  c.Stop(Seconds(duration));
  sbs::watchConsumers(c);

  ndn::AppHelper producer("ns3::ndn::Producer");
  producer.SetPrefix("/prefix");
  producer.SetAttribute("PayloadSize", UintegerValue(payload));
  producer.SetAttribute("Freshness", TimeValue(Seconds(10)));
  producer.Install(nodes.Get(2));

  sbs::runAndReport("simple", duration + lifetime + 1);
  return 0;
}

} // namespace ns3

int
main(int argc, char* argv[])
{
  return ns3::run(argc, argv);
}
