// Seed 003's line (Nakamura and Ohsaki, "Performance Evaluation of an
// Open-Source Implementation of Content-Centric Networking", 2015), side by
// side with experiments/ndnsim-line.toml: N routers r0 .. r(N-1) in a line,
// 1 Gbit/s links, a Content Store of 10 Data on each router, a repository on
// every router holding one content of 8000 bytes (/repo/r<i>/c0), and a
// requester on every router asking, at Poisson rate lambda, for the content
// of a repository drawn uniformly among all N (its own included).
//
//   sbs-line --n=30 --rate=6 --duration=10
#include "sbs-common.h"

#include <map>

namespace ns3 {
namespace sbs {

// The requester: exponential gaps of mean 1/Rate, a repository drawn
// uniformly among Repositories, one Interest per draw. Every Interest is
// timed from its own sending; a Data answers every Interest pending for its
// name (the node's forwarder aggregates a repeated name from one face).
class PoissonRequester : public ndn::App
{
public:
  static TypeId
  GetTypeId()
  {
    static TypeId tid =
      TypeId("sbs::PoissonRequester")
        .SetGroupName("Ndn")
        .SetParent<ndn::App>()
        .AddConstructor<PoissonRequester>()
        .AddAttribute("Rate", "Interests per second", DoubleValue(1.0),
                      MakeDoubleAccessor(&PoissonRequester::m_rate), MakeDoubleChecker<double>())
        .AddAttribute("Repositories", "repositories r0 .. r(N-1) to draw from", UintegerValue(1),
                      MakeUintegerAccessor(&PoissonRequester::m_repositories),
                      MakeUintegerChecker<uint32_t>(1))
        .AddAttribute("LifeTime", "InterestLifetime", TimeValue(Seconds(4)),
                      MakeTimeAccessor(&PoissonRequester::m_lifetime), MakeTimeChecker());
    return tid;
  }

protected:
  void
  StartApplication() override
  {
    ndn::App::StartApplication();
    m_gap = CreateObject<ExponentialRandomVariable>();
    m_gap->SetAttribute("Mean", DoubleValue(1.0 / m_rate));
    m_draw = CreateObject<UniformRandomVariable>();
    m_next = Simulator::Schedule(Seconds(m_gap->GetValue()), &PoissonRequester::send, this);
  }

  void
  StopApplication() override
  {
    Simulator::Cancel(m_next);
    ndn::App::StopApplication();
  }

public:
  void
  OnData(std::shared_ptr<const ndn::Data> data) override
  {
    ndn::App::OnData(data);
    auto range = m_pending.equal_range(data->getName());
    for (auto it = range.first; it != range.second; ++it) {
      tally().data++;
      tally().delaySumUs += (Simulator::Now() - it->second).GetSeconds() * 1e6;
    }
    m_pending.erase(range.first, range.second);
  }

private:
  void
  send()
  {
    if (!m_active)
      return;
    uint32_t j = m_draw->GetInteger(0, m_repositories - 1);
    ndn::Name name("/repo/r" + std::to_string(j));
    name.append("c0");
    auto interest = std::make_shared<ndn::Interest>(name);
    interest->setNonce(m_draw->GetInteger(0, std::numeric_limits<uint32_t>::max()));
    interest->setCanBePrefix(false);
    interest->setInterestLifetime(ndn::time::milliseconds(m_lifetime.GetMilliSeconds()));
    m_pending.emplace(name, Simulator::Now());
    tally().interests++;
    m_transmittedInterests(interest, this, m_face);
    m_appLink->onReceiveInterest(*interest);
    m_next = Simulator::Schedule(Seconds(m_gap->GetValue()), &PoissonRequester::send, this);
  }

  double m_rate;
  uint32_t m_repositories;
  Time m_lifetime;
  Ptr<ExponentialRandomVariable> m_gap;
  Ptr<UniformRandomVariable> m_draw;
  EventId m_next;
  std::multimap<ndn::Name, Time> m_pending;
};

NS_OBJECT_ENSURE_REGISTERED(PoissonRequester);

} // namespace sbs

int
run(int argc, char* argv[])
{
  uint32_t n = 10;
  double rate = 6;
  double duration = 10;
  double lifetime = 4;
  uint32_t payload = 8000;
  uint32_t cs = 10;
  std::string delay = "0ms";
  std::string bandwidth = "1Gbps";
  CommandLine cmd;
  cmd.AddValue("n", "routers in the line", n);
  cmd.AddValue("rate", "Interests per second of each requester (lambda)", rate);
  cmd.AddValue("duration", "seconds the requesters send", duration);
  cmd.AddValue("lifetime", "Interest lifetime, seconds", lifetime);
  cmd.AddValue("payload", "content bytes of each repository's Data", payload);
  cmd.AddValue("cs", "Content Store packets per node", cs);
  cmd.AddValue("delay", "one-way link delay", delay);
  cmd.AddValue("bandwidth", "link rate", bandwidth);
  cmd.Parse(argc, argv);
  NS_ABORT_MSG_IF(n < 2, "--n must be at least 2");

  sbs::linkDefaults();
  NodeContainer nodes;
  nodes.Create(n);
  PointToPointHelper p2p;
  p2p.SetDeviceAttribute("DataRate", StringValue(bandwidth));
  p2p.SetChannelAttribute("Delay", StringValue(delay));
  sbs::unboundedQueue(p2p);
  for (uint32_t i = 1; i < n; ++i)
    p2p.Install(nodes.Get(i - 1), nodes.Get(i));

  sbs::installStack(cs);
  ndn::GlobalRoutingHelper routing;
  routing.InstallAll();
  for (uint32_t i = 0; i < n; ++i) {
    std::string prefix = "/repo/r" + std::to_string(i);
    routing.AddOrigins(prefix, nodes.Get(i));
    ndn::AppHelper repository("ns3::ndn::Producer");
    repository.SetPrefix(prefix);
    repository.SetAttribute("PayloadSize", UintegerValue(payload));
    repository.SetAttribute("Freshness", TimeValue(Seconds(3600)));
    repository.Install(nodes.Get(i));

    ndn::AppHelper requester("sbs::PoissonRequester");
    requester.SetAttribute("Rate", DoubleValue(rate));
    requester.SetAttribute("Repositories", UintegerValue(n));
    requester.SetAttribute("LifeTime", TimeValue(Seconds(lifetime)));
    ApplicationContainer c = requester.Install(nodes.Get(i));
    c.Start(Seconds(0));
    c.Stop(Seconds(duration));
  }
  ndn::GlobalRoutingHelper::CalculateRoutes();

  sbs::runAndReport("line" + std::to_string(n), duration + lifetime + 1);
  return 0;
}

} // namespace ns3

int
main(int argc, char* argv[])
{
  return ns3::run(argc, argv);
}
