"""GANs: pytorch/examples DCGAN, eriklindernoren/PyTorch-GAN, caogang/wgan-gp and the issue
threads about "Trying to backward through the graph a second time" in GAN steps."""
import torch
from torch import nn

from . import FREED, Case


def _nets():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 4), nn.Tanh())
    D = nn.Sequential(nn.Linear(4, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
    return G, D, torch.randn(5, 4), torch.randn(5, 3)


def dcgan(detach=True, retain=False):
    """pytorch/examples dcgan/main.py: D on real and on fake.detach(), optimizerD.step(); G's
    loss through a fresh netD(fake), optimizerG.step()."""
    netG, netD, real, noise = _nets()
    criterion = nn.BCEWithLogitsLoss()
    optD = torch.optim.Adam(netD.parameters(), lr=1e-3)
    optG = torch.optim.Adam(netG.parameters(), lr=1e-3)
    ones, zeros = torch.ones(5, 1), torch.zeros(5, 1)

    def step():
        netD.zero_grad()
        errD_real = criterion(netD(real), ones)
        errD_real.backward()
        fake = netG(noise)
        output = netD(fake.detach() if detach else fake)
        errD_fake = criterion(output, zeros)
        errD_fake.backward(retain_graph=retain)
        optD.step()
        netG.zero_grad()
        output = netD(fake)
        errG = criterion(output, ones)
        errG.backward()
        optG.step()
    return step, ()


def wgan_clip():
    """PyTorch-GAN implementations/wgan/wgan.py (after the fix of issue #6): critic loss on
    fake_imgs.detach(), weight clipping through p.data, the generator every n_critic steps."""
    G, D, real, z = _nets()
    optD = torch.optim.RMSprop(D.parameters(), lr=5e-5)
    optG = torch.optim.RMSprop(G.parameters(), lr=5e-5)

    def step():
        for i in range(2):
            optD.zero_grad()
            fake_imgs = G(z).detach()
            loss_D = -torch.mean(D(real)) + torch.mean(D(fake_imgs))
            loss_D.backward()
            optD.step()
            for p in D.parameters():
                p.data.clamp_(-0.01, 0.01)
            if i % 2 == 1:
                optG.zero_grad()
                loss_G = -torch.mean(D(G(z)))
                loss_G.backward()
                optG.step()
    return step, ()


def _penalty(D, real, fake):
    alpha = torch.rand(real.size(0), 1)
    interpolates = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    d_interpolates = D(interpolates)
    gradients = torch.autograd.grad(outputs=d_interpolates, inputs=interpolates,
                                    grad_outputs=torch.ones_like(d_interpolates),
                                    create_graph=True, retain_graph=True)[0]
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean()


def wgan_gp():
    """PyTorch-GAN implementations/wgan_gp/wgan_gp.py: the gradient penalty from one
    autograd.grad(create_graph=True) and one backward of the critic's loss."""
    G, D, real, z = _nets()
    optD = torch.optim.Adam(D.parameters(), lr=1e-4)

    def step():
        optD.zero_grad()
        fake = G(z)
        gp = _penalty(D, real, fake.detach())
        d_loss = -torch.mean(D(real)) + torch.mean(D(fake.detach())) + 10 * gp
        d_loss.backward()
        optD.step()
    return step, ()


def wgan_gp_three_backwards():
    """caogang/wgan-gp gan_toy.py: D_real.backward(mone), D_fake.backward(one) and
    gradient_penalty.backward(): three backwards, three separate graphs."""
    G, D, real, z = _nets()
    optD = torch.optim.Adam(D.parameters(), lr=1e-4)
    one = torch.tensor(1.0)

    def step():
        D.zero_grad()
        D_real = D(real).mean()
        D_real.backward(-one)
        fake = G(z).detach()
        D_fake = D(fake).mean()
        D_fake.backward(one)
        gradient_penalty = 0.1 * _penalty(D, real, fake)
        gradient_penalty.backward()
        optD.step()
    return step, ()


def two_generator_losses(summed=False):
    """facebookresearch/pytorch_GAN_zoo issue #83 (GDPP): lossGFake.backward() and then the
    GDPP loss's backward over the same generator graph; the fix (PR #85) adds the losses."""
    G, D, real, z = _nets()
    optG = torch.optim.Adam(G.parameters(), lr=1e-3)

    def step():
        optG.zero_grad()
        fake = G(z)
        lossGFake = -D(fake).mean()
        lossGDPP = (fake.mean(0) - real.mean(0)).pow(2).sum()
        if summed:
            (lossGFake + lossGDPP).backward()
        else:
            lossGFake.backward()
            lossGDPP.backward()
        optG.step()
    return step, ()


def stylemap_two_losses():
    """naver-ai/StyleMapGAN issue #16: (adv_loss * lambda).backward() then
    (w_rec_loss * lambda).backward() on one forward of the model."""
    G, D, real, z = _nets()
    opt = torch.optim.Adam(G.parameters(), lr=1e-3)

    def step():
        opt.zero_grad()
        fake = G(z)
        adv_loss = nn.functional.softplus(-D(fake)).mean()
        w_rec_loss = (fake - real).abs().mean()
        (adv_loss * 1.0).backward()
        (w_rec_loss * 1.0).backward()
        opt.step()
    return step, ()


CASES = [
    Case("dcgan", "pytorch/examples dcgan/main.py", dcgan),
    Case("dcgan_no_detach", "pytorch/examples dcgan/main.py with netD(fake) instead of "
         "netD(fake.detach()) (forum: 'Trying to backward through the graph a second time' "
         "in DCGAN)", lambda: dcgan(detach=False), (1, FREED), ["freed-reuse"],
         fix="fake.detach()", verified=True),
    Case("gan_retain_d", "VITA-Group/DeblurGANv2 issue #19: retain_graph=True on D's backward "
         "so that G's backward can run", lambda: dcgan(detach=False, retain=True), None,
         ["double-traversal"], fix="fake.detach()", verified=True),
    Case("wgan_clip", "eriklindernoren/PyTorch-GAN implementations/wgan/wgan.py (issue #6)",
         wgan_clip),
    Case("wgan_gp", "eriklindernoren/PyTorch-GAN implementations/wgan_gp/wgan_gp.py", wgan_gp),
    Case("wgan_gp_three", "caogang/wgan-gp gan_toy.py", wgan_gp_three_backwards),
    Case("gdpp_two_losses", "facebookresearch/pytorch_GAN_zoo issue #83 (models/base_GAN.py)",
         two_generator_losses, (1, FREED), ["freed-reuse"],
         fix="(lossGFake + lossGDPP).backward()", verified=True),
    Case("gdpp_summed", "facebookresearch/pytorch_GAN_zoo PR #85 (the fix of issue #83)",
         lambda: two_generator_losses(summed=True)),
    Case("stylemap_two_losses", "naver-ai/StyleMapGAN issue #16 (train.py)",
         stylemap_two_losses, (1, FREED), ["freed-reuse"],
         fix="((adv_loss * 1.0) + (w_rec_loss * 1.0)).backward()", verified=True),
]
