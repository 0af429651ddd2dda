// A Rocketfuel map in ndnSIM's annotated topology format, side by side with
// experiments/ndnsim-rocketfuel.toml (the same file through `ndnlab topo
// import`): a producer of /rf on one node, a Poisson consumer on every node of
// degree 1, each asking for its own names (/rf/<node>/<seq>). Routes follow
// the shortest path in link delay, as `[routes] metric = "delay"` does: each
// face's metric is its channel's delay in units of 10 us (ndnSIM's route
// computation holds a link metric in 16 bits and takes 65535 for an infinite
// distance, so a path must stay under 655 ms).
//
//   sbs-rocketfuel --topology=7018.r0.txt --producer=bb-12832 --rate=100 --duration=5
#include "sbs-common.h"

namespace ns3 {

int
run(int argc, char* argv[])
{
  std::string topology;
  std::string producerName;
  double rate = 100;
  double duration = 5;
  double lifetime = 2;
  uint32_t payload = 1024;
  uint32_t cs = 100;
  CommandLine cmd;
  cmd.AddValue("topology", "ndnSIM annotated topology file", topology);
  cmd.AddValue("producer", "node the producer is on", producerName);
  cmd.AddValue("rate", "Interests per second of each consumer (Poisson)", rate);
  cmd.AddValue("duration", "seconds the consumers send", duration);
  cmd.AddValue("lifetime", "Interest lifetime, seconds", lifetime);
  cmd.AddValue("payload", "Data content bytes", payload);
  cmd.AddValue("cs", "Content Store packets per node", cs);
  cmd.Parse(argc, argv);
  NS_ABORT_MSG_IF(topology.empty() || producerName.empty(), "--topology and --producer are required");

  sbs::linkDefaults();
  AnnotatedTopologyReader reader("", 1);
  reader.SetFileName(topology);
  NodeContainer nodes = reader.Read();
  NS_ABORT_MSG_IF(nodes.GetN() == 0, "no nodes read from " << topology);

  sbs::installStack(cs);
  for (uint32_t i = 0; i < nodes.GetN(); ++i) {
    for (auto& face : nodes.Get(i)->GetObject<ndn::L3Protocol>()->getFaceTable()) {
      auto transport = dynamic_cast<ndn::NetDeviceTransport*>(face.getTransport());
      if (transport == nullptr)
        continue;
      TimeValue d;
      transport->GetNetDevice()->GetChannel()->GetAttribute("Delay", d);
      face.setMetric(static_cast<uint64_t>(d.Get().GetMicroSeconds() / 10));
    }
  }

  Ptr<Node> producerNode = Names::Find<Node>(producerName);
  NS_ABORT_MSG_IF(producerNode == nullptr, "no node " << producerName << " in " << topology);
  ndn::GlobalRoutingHelper routing;
  routing.InstallAll();
  routing.AddOrigins("/rf", producerNode);
  ndn::GlobalRoutingHelper::CalculateRoutes();

  ndn::AppHelper producer("ns3::ndn::Producer");
  producer.SetPrefix("/rf");
  producer.SetAttribute("PayloadSize", UintegerValue(payload));
  producer.SetAttribute("Freshness", TimeValue(Seconds(10)));
  producer.Install(producerNode);

  for (uint32_t i = 0; i < nodes.GetN(); ++i) {
    Ptr<Node> node = nodes.Get(i);
    if (node->GetNDevices() != 1 || node == producerNode)
      continue;
    ndn::AppHelper consumer("ns3::ndn::ConsumerCbr");
    consumer.SetPrefix("/rf/" + Names::FindName(node));
    consumer.SetAttribute("Frequency", DoubleValue(rate));
    consumer.SetAttribute("Randomize", StringValue("exponential"));
    consumer.SetAttribute("LifeTime", TimeValue(Seconds(lifetime)));
    ApplicationContainer c = consumer.Install(node);
    c.Start(Seconds(0));
    c.Stop(Seconds(duration));
    sbs::watchConsumers(c);
  }

  sbs::runAndReport("rocketfuel", duration + lifetime + 1);
  return 0;
}

} // namespace ns3

int
main(int argc, char* argv[])
{
  return ns3::run(argc, argv);
}
